"""PTX008: inline PTX nanosleep.

Why: `nanosleep.u32 %0;` is PTX and does not assemble for AMDGCN. AMD's S_SLEEP sleeps about
    64 * imm clocks, and __builtin_amdgcn_s_sleep needs a constant argument (7 bits used). PTX
    promises a sleep within [0, 2t] ns, so a constant t becomes the nearest immediate at the
    MI350X's 2200 MHz clock (t = 100 ns -> s_sleep 3); a run-time t, or one above the largest
    immediate, becomes porter's __porter_nanosleep(t) (shims/compat/ptx_timers.h, added by
    SHIM011), which sleeps in S_SLEEP chunks.

Before:
    asm volatile("nanosleep.u32 %0;" :: "r"(backoff));
After:
    __porter_nanosleep(backoff);

Fix safety: safe; sleeping is a scheduling hint with no effect on values.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX008", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def nanosleep(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX008")
