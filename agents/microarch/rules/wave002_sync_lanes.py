"""WAVE002: warp shuffle or vote that acts over 64 lanes on CDNA.

Why: a CDNA wavefront has 64 lanes (warpSize is 64 on gfx9), so __shfl*_sync, __ballot_sync,
    __any_sync, __all_sync, __match_*_sync and __activemask act over 64 lanes after the port, not 32.
    Code written for 32 lanes says so in its arguments: a shuffle tree whose offset starts at 16
    reduces each half of the wave on its own, a scan whose offset stops below 32 never crosses the
    halves, and a width of 32 splits the wave into two 32-lane segments. Each call is reported, with
    the 32-lane argument named where there is one. The pre-CUDA 9 forms (__shfl_down, __ballot,
    __any, __all), which HIP still provides, behave the same way.

Before:
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    for (int d = 1; d < 32; d <<= 1) { float t = __shfl_up_sync(mask, v, d); if (lane >= d) v += t; }
    v += __shfl_xor(v, 16); v += __shfl_xor(v, 8); ...
After:
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    for (int d = 1; d < warpSize; d <<= 1) { float t = __shfl_up_sync(mask, v, d); if (lane >= d) v += t; }
    if (warpSize > 32) v += __shfl_xor(v, 32);
    v += __shfl_xor(v, 16); v += __shfl_xor(v, 8); ...

Fix safety: safe where the code says "the whole warp": a halving loop from the literal 16 down to 1,
    a doubling loop from 1 to below the literal 32, or an unrolled chain 16, 8, ... whose first step
    is an expression statement, with no width argument (or width warpSize). The loop bounds become
    warpSize-based (warpSize is a run-time value in ROCm 7, which a loop bound may be); the unrolled
    chain gets a 32 step guarded by `warpSize > 32`, so the code stays right on 32-lane targets.
    A width of 32, or an offset that comes from a constant, is a logical segment or another rule's
    (WAVE003 rewrites WARP_SIZE): reported, not changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_sites import SHUFFLES, _chain_fix, _loop_fix, _start
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Severity
from porter.syntax import SourceFile

VOTES = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__activemask", "__match_any_sync",
                   "__match_all_sync", "__ballot", "__any", "__all"})
_ORDINAL = {1: "second", 2: "third", 3: "fourth"}


@rule(id="WAVE002", lang="cuda", severity="warning", fix="safe",
      trigger=any_of([*SHUFFLES, *VOTES]))
def sync_lanes(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _sync_lanes(unit, ctx))


def _sync_lanes(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    fixed: set[int] = set()  # file offsets of loop literals and chain statements already given a fix
    for view in patterns.views(unit):
        for callee, call in patterns.calls(view, frozenset(SHUFFLES) | VOTES):
            if callee == "__activemask":
                message = "__activemask returns a 64-bit mask on CDNA, one bit per lane of the 64-lane wavefront"
            elif callee in VOTES:
                sized = "its mask is" if callee in ("__any_sync", "__all_sync", "__any", "__all") else "its mask and result are"
                message = f"{callee} votes over the 64 lanes of a CDNA wavefront, not 32: {sized} 64 bits wide"
            else:
                fix = _loop_fix(unit, view, callee, call) or _chain_fix(unit, view, callee, call)
                if fix is not None and fix.start not in fixed:
                    fixed.add(fix.start)
                    yield fix
                notes = [] if fix is not None else _thirty_two_lane_arguments(unit, view, callee, call)
                message = f"{callee} exchanges values across the 64 lanes of a CDNA wavefront, not 32"
                if notes:
                    message += "; " + "; ".join(notes) + ": if the whole warp was meant, derive it from warpSize"
            yield Hit(*view.span(call), message, severity=Severity.info if not _is_hazard(message) else None)


def _is_hazard(message: str) -> bool:
    return "starts at 16" in message or "width 32" in message or "stops below 32" in message


def _thirty_two_lane_arguments(unit: SourceFile, view: patterns.View, callee: str, call) -> list[str]:
    offset_at, width_at = SHUFFLES[callee]
    arguments = patterns.args(call)
    notes = []
    if offset_at is not None and offset_at < len(arguments):
        start, line = _start(unit, view, arguments[offset_at])
        if start == 16:
            where = f" (line {line})" if line and line != unit.line_col(view.span(call)[0])[0] else ""
            notes.append(f"the offset ({_ORDINAL[offset_at]} argument) starts at 16{where}, a tree over 32 lanes "
                         "that reduces each half of the wave separately")
    if width_at < len(arguments) and patterns.value(unit, view, arguments[width_at]) == 32:
        notes.append(f"width 32 ({_ORDINAL[width_at]} argument) splits the wave into two 32-lane segments")
    return notes


