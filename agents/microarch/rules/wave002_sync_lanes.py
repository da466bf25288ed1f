"""WAVE002: warp shuffle or vote that acts over 64 lanes on CDNA.

Why: a CDNA wavefront has 64 lanes (warpSize is 64 on gfx9), so __shfl*_sync, __ballot_sync,
    __any_sync, __all_sync, __match_*_sync and __activemask act over 64 lanes after the port, not 32.
    Code written for 32 lanes says so in its arguments: a shuffle tree whose offset starts at 16
    reduces each half of the wave on its own, and a width of 32 splits the wave into two 32-lane
    segments. Each call is reported, with the 32-lane argument named where there is one. The pre-CUDA 9
    forms (__shfl_down, __ballot, __any, __all), which HIP still provides, behave the same way.

Before:
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
After:
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);

Fix safety: none: whether 32 lanes were meant (a 32-wide logical tile) or assumed (the hardware warp)
    is the author's intent; a person or the model decides, with this finding as context.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

# (offset or source-lane argument index, width argument index); CUDA C++ Programming Guide, warp shuffle.
SHUFFLES = {
    "__shfl_sync": (None, 3), "__shfl_up_sync": (2, 3), "__shfl_down_sync": (2, 3), "__shfl_xor_sync": (2, 3),
    "__shfl": (None, 2), "__shfl_up": (1, 2), "__shfl_down": (1, 2), "__shfl_xor": (1, 2),
}
VOTES = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__activemask", "__match_any_sync",
                   "__match_all_sync", "__ballot", "__any", "__all"})
_ORDINAL = {1: "second", 2: "third", 3: "fourth"}


@rule(id="WAVE002", lang="cuda", severity="warning")
def sync_lanes(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        for callee, call in patterns.calls(view, frozenset(SHUFFLES) | VOTES):
            if callee == "__activemask":
                message = "__activemask returns a 64-bit mask on CDNA, one bit per lane of the 64-lane wavefront"
            elif callee in VOTES:
                sized = "its mask is" if callee in ("__any_sync", "__all_sync", "__any", "__all") else "its mask and result are"
                message = f"{callee} votes over the 64 lanes of a CDNA wavefront, not 32: {sized} 64 bits wide"
            else:
                notes = _thirty_two_lane_arguments(unit, view, callee, call)
                message = f"{callee} exchanges values across the 64 lanes of a CDNA wavefront, not 32"
                if notes:
                    message += "; " + "; ".join(notes) + ": if the whole warp was meant, derive it from warpSize"
            yield Hit(*view.span(call), message)


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


def _start(unit: SourceFile, view: patterns.View, node) -> tuple[int | None, int | None]:
    """The offset's value, or for a loop variable the value it starts from (and that line)."""
    node = patterns.unwrap(node)
    if node.type != "identifier":
        return patterns.value(unit, view, node), None
    name = view.src.text(node)
    loop = patterns.enclosing(node, "for_statement")
    while loop is not None:
        init = loop.child_by_field_name("initializer")
        for target, first in _initialised(view.src, init):
            if target == name:
                return patterns.value(unit, view, first), unit.line_col(view.span(first)[0])[0]
        loop = patterns.enclosing(loop, "for_statement")
    return patterns.value(unit, view, node), None


def _initialised(src: SourceFile, init) -> Iterator[tuple[str, object]]:
    """(name, initial value) pairs of a for-loop initializer: `int o = 16` or `o = 16`."""
    if init is None:
        return
    if init.type == "declaration":
        for d in init.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                yield src.text(d.child_by_field_name("declarator")), d.child_by_field_name("value")
    elif init.type == "assignment_expression":
        yield src.text(init.child_by_field_name("left")), init.child_by_field_name("right")
