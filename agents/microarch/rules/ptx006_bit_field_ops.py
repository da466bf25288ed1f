"""PTX006: inline PTX bit-field extract/insert and byte permute (bfe, bfi, prmt).

Why: these PTX instructions do not assemble for AMDGCN, and their AMD look-alikes differ at the
    edges: V_BFE_U32/I32 take offset and width mod 32 (PTX bfe with len 32 returns the whole
    word, V_BFE gives 0); V_BFI_B32 is a bitwise select, not PTX's positional insert; V_PERM_B32
    orders its sources the other way round and can replicate the sign of bytes 1, 3, 5, 7 only.
    porter uses __builtin_amdgcn_ubfe/sbfe when the position and length are constants below 32,
    a mask-and-shift for bfi with constant operands, and __builtin_amdgcn_perm(b, a, sel') with
    the selector re-encoded for prmt's default mode. Run-time operands and sign-replicating
    selectors of bytes 0, 2, 4, 6 go through porter's exact helpers __porter_bfe_u32/_s32,
    __porter_bfi_b32 and __porter_prmt_b32 (shims/compat/ptx_bit_ops.h, added by SHIM010).

Before:
    asm("prmt.b32 %0, %1, %2, 0x0123;" : "=r"(r) : "r"(x), "r"(0));
After:
    r = __builtin_amdgcn_perm(0, x, 0x00010203u);

Fix safety: safe; the prmt modes (.f4e, .b4e, .rc8, .ecl, .ecr, .rc16) and bfe/bfi on 64-bit
    types stay PTX001 hazards.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX006", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def bit_field_ops(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX006")
