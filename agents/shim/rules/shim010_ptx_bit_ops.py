"""SHIM010: porter's exact PTX bit-field helpers (__porter_bfe_u32, __porter_bfi_b32, __porter_prmt_b32).

Why: PTX006 rewrites inline-PTX bfe/bfi/prmt whose operands V_BFE/V_PERM cannot reproduce
(run-time positions and lengths, sign-replicating prmt selectors of even bytes) as calls of
porter's helpers, which HIP does not declare. porter_compat.h defines them, following the PTX
ISA's definitions bit for bit.

Before:
    r = __porter_prmt_b32(a, b, sel);
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    r = __porter_prmt_b32(a, b, sel);

Fix safety: safe; the header only adds the helpers' definitions.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

NAMES = frozenset({"__porter_bfe_u32", "__porter_bfe_s32", "__porter_bfi_b32", "__porter_prmt_b32"})
HEADER = "compat/ptx_bit_ops.h"


@rule(id="SHIM010", lang="cuda", severity="info",
      trigger=any_of(NAMES))
def ptx_bit_ops(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for start, end, name in unit.identifiers():
        if name in NAMES:
            yield Hit(start, end, f"{name} is porter's exact PTX helper: porter_compat.h defines it")
