"""SHIM011: %globaltimer and nanosleep helpers, and CUDA's __nanosleep, which HIP does not declare.

Why: PTX002 rewrites `mov.u64 %0, %%globaltimer;` as __porter_globaltimer() (wall_clock64()
scaled to ns) and PTX008 a run-time `nanosleep.u32` as __porter_nanosleep(t) (S_SLEEP takes
only a constant); CUDA C++'s own __nanosleep(t) has no HIP declaration either. porter_compat.h
defines all three (shims/compat/ptx_timers.h); define PORTER_NO_NANOSLEEP_SHIM where a HIP
release provides __nanosleep.

Before:
    __nanosleep(backoff);
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    __nanosleep(backoff);

Fix safety: safe; the header only adds declarations the unit was missing.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

NAMES = frozenset({"__porter_globaltimer", "__porter_nanosleep", "__nanosleep"})
HEADER = "compat/ptx_timers.h"


@rule(id="SHIM011", lang="cuda", severity="info",
      trigger=any_of(NAMES))
def ptx_timers(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for start, end, name in unit.identifiers():
        if name in NAMES:
            yield Hit(start, end, f"{name} has no HIP declaration: porter_compat.h defines it for CDNA")
