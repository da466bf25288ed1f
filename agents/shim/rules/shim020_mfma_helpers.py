"""SHIM020: porter's gfx950 matrix-core helpers, declared by the compat header.

Why: MFMA001-MFMA003 rewrite nvcuda::wmma, mma.sync and ldmatrix to porter_wmma,
porter_mma_m16n8k16_{f16,bf16} and porter_ldmatrix_*, which no HIP header declares. The compat
piece shims/compat/mfma_gfx950.h defines them (and MFMA004's porter_mfma::warp_threads) on v_mfma_f32_16x16x32_{f16,bf16} with AMD's
published lane layouts (and __cvta_generic_to_shared for the ldmatrix addresses).

Before:
    namespace wmma = porter_wmma;
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    namespace wmma = porter_wmma;

Fix safety: safe; the header only adds declarations the unit was missing. The shim agent
writes the header and the include; the rule itself reports each use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

NAMES = re.compile(rb"(?<![A-Za-z0-9_])(porter_wmma|porter_mfma|porter_mma_m16n8k16_(?:f16|bf16)"
                   rb"|porter_ldmatrix_x[124](?:_trans)?)(?![A-Za-z0-9_])")
HEADER = "compat/mfma_gfx950.h"


@rule(id="SHIM020", lang="cuda", severity="info",
      trigger=any_of(["porter_"]))
def mfma_helpers(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for start, end, name in unit.identifiers(NAMES):
        yield Hit(start, end, f"{name} is porter's gfx950 MFMA helper: porter_compat.h defines it")
