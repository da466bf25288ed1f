"""PTX007: inline PTX half-precision conversions (cvt.rn.bf16x2.f32, cvt.rn.f16x2.f32, cvt.rn.bf16.f32, ...).

Why: `cvt.rn.bf16x2.f32 %0, %1, %2;` is PTX and does not assemble for AMDGCN. clang's __bf16 and
    _Float16 conversions round to nearest even like cvt.rn, and on gfx950 the backend turns a
    bf16 pair into one V_CVT_PK_BF16_F32 (new in CDNA4; clang has no builtin for it). porter
    packs the bit patterns as PTX does: the first source in the upper half, the second in the
    lower. cvt.f32.bf16/.f16 widen a bit pattern back to float.

Before:
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
After:
    packed = ((unsigned int)__builtin_bit_cast(unsigned short, (__bf16)hi) << 16) | __builtin_bit_cast(unsigned short, (__bf16)lo);

Fix safety: safe; NaN payloads may differ (both give a quiet NaN). .relu, .satfinite and other
    rounding modes stay PTX001 hazards.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX007", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def packed_conversions(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX007")
