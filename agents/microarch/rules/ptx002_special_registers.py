"""PTX002: inline PTX that reads a special register (%laneid, %warpid, %smid, %clock64, ...).

Why: `mov.u32 %0, %%laneid;` and its kin are PTX, which clang's AMDGPU backend cannot assemble.
    Each special register has a HIP or clang counterpart on gfx950: %laneid -> __lane_id()
    (mbcnt over the 64-lane exec mask), %smid -> __smid(), %clock/%clock64 -> clock64()
    (S_MEMTIME), %gridid -> __builtin_amdgcn_dispatch_id(), %globaltimer -> porter's
    __porter_globaltimer() (wall_clock64() scaled to ns; shims/compat/ptx_timers.h), %warpid and
    %nwarpid -> the wave's index in its workgroup and the workgroup's wave count (PTX documents
    %warpid as a volatile hardware slot and advises %tid instead; porter picks the stable value).

Before:
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
After:
    lane = __lane_id();

Fix safety: safe; the asm is rewritten only when every instruction is in porter's PTX catalog
    (agents/microarch/ptx_catalog.py). Lane ids run 0-63 on a wave64.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX002", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def special_registers(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX002")
