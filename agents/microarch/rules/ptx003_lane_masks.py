"""PTX003: inline PTX that reads a lane mask (%lanemask_lt, _le, _eq, _ge, _gt).

Why: the lane masks are PTX special registers, which do not assemble for AMDGCN, and on a
    wave64 they have 64 bits, not 32. porter computes them from __lane_id() with 64-bit shifts
    (`%lanemask_lt` -> `((1ull << __lane_id()) - 1)`). HIP's own __lanemask_lt/__lanemask_gt
    are not used: they also AND in the active lanes, which PTX's registers do not. A 32-bit
    destination keeps only lanes 0-31; the finding says so, and the WAVE rules flag the
    narrow variable.

Before:
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
After:
    below = ((1ull << __lane_id()) - 1);

Fix safety: safe; exact for lanes 0-63 (the shift by 63 wraps as unsigned arithmetic).
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX003", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def lane_masks(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX003")
