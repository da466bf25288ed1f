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

from porter.agents.microarch import patterns, wave_model
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

# (offset or source-lane argument index, width argument index); CUDA C++ Programming Guide, warp shuffle.
SHUFFLES = {
    "__shfl_sync": (None, 3), "__shfl_up_sync": (2, 3), "__shfl_down_sync": (2, 3), "__shfl_xor_sync": (2, 3),
    "__shfl": (None, 2), "__shfl_up": (1, 2), "__shfl_down": (1, 2), "__shfl_xor": (1, 2),
}
VOTES = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__activemask", "__match_any_sync",
                   "__match_all_sync", "__ballot", "__any", "__all"})
_ORDINAL = {1: "second", 2: "third", 3: "fourth"}


@rule(id="WAVE002", lang="cuda", severity="warning", fix="safe")
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


def _width_is_32(unit: SourceFile, view: patterns.View, callee: str, call) -> bool:
    _, width_at = SHUFFLES[callee]
    arguments = patterns.args(call)
    return width_at < len(arguments) and patterns.value(unit, view, arguments[width_at]) == 32


def _loop_fix(unit: SourceFile, view: patterns.View, callee: str, call) -> Hit | None:
    """A halving loop from the literal 16, or a doubling loop below the literal 32, around a shuffle's offset."""
    offset_at, _ = SHUFFLES[callee]
    arguments = patterns.args(call)
    if offset_at is None or offset_at >= len(arguments) or _width_is_32(unit, view, callee, call):
        return None
    offset = patterns.unwrap(arguments[offset_at])
    if offset.type != "identifier":
        return None
    src, name = view.src, view.src.text(offset)
    loop = patterns.enclosing(offset, "for_statement")
    while loop is not None:
        starts = dict(_initialised(src, loop.child_by_field_name("initializer")))
        if name in starts:
            break
        loop = patterns.enclosing(loop, "for_statement")
    if loop is None:
        return None
    first = patterns.unwrap(starts[name])
    first_value = patterns.literal(src.text(first)) if first.type == "number_literal" else None
    step = _step(src, loop.child_by_field_name("update"), name)
    bound = _bound(src, loop.child_by_field_name("condition"), name)
    if first_value and first_value[0] == 16 and step == "halves" and bound == ("low", 0):
        start, end = view.span(first)
        line = unit.line_col(start)[0]
        return Hit(start, end, f"the {callee} loop starts its offset at 16 (line {line}): a tree over 32 lanes that "
                   "reduces each half of a 64-lane wavefront separately; start at warpSize / 2",
                   edits=(Edit(start=start, end=end, text="warpSize / 2"),))
    if first_value and first_value[0] == 1 and step == "doubles" and bound and bound[0] == "high":
        literal = bound[1]
        limit = patterns.literal(src.text(literal))
        text = {(32, "<"): "warpSize", (16, "<="): "warpSize / 2"}.get((limit[0], bound[2])) if limit else None
        if text:
            start, end = view.span(literal)
            return Hit(start, end, f"the {callee} loop stops below 32 (line {unit.line_col(start)[0]}): a scan over "
                       "32 lanes never crosses the halves of a 64-lane wavefront; bound it by warpSize",
                       edits=(Edit(start=start, end=end, text=text),))
    return None


def _step(src: SourceFile, update, name: str) -> str:
    if update is None:
        return ""
    text = "".join(src.text(update).split())
    if text in (f"{name}/=2", f"{name}>>=1", f"{name}={name}/2", f"{name}={name}>>1"):
        return "halves"
    if text in (f"{name}*=2", f"{name}<<=1", f"{name}={name}*2", f"{name}={name}<<1", f"{name}+={name}"):
        return "doubles"
    return ""


def _bound(src: SourceFile, condition, name: str):
    """("low", 0) for `o > 0` / `o >= 1` / `o != 0`; ("high", literal node, op) for `d < 32` / `d <= 16`."""
    if condition is None or condition.type != "binary_expression":
        return None
    op = src.text(condition.child_by_field_name("operator"))
    left, right = patterns.unwrap(condition.child_by_field_name("left")), patterns.unwrap(condition.child_by_field_name("right"))
    if src.text(left) != name or right.type != "number_literal":
        return None
    value = patterns.literal(src.text(right))
    if value and (op, value[0]) in ((">", 0), (">=", 1), ("!=", 0)):
        return ("low", 0)
    if op in ("<", "<="):
        return ("high", right, op)
    return None


def _chain_fix(unit: SourceFile, view: patterns.View, callee: str, call) -> Hit | None:
    """An unrolled chain 16, 8, ...: add the 32 step, guarded so 32-lane targets skip it."""
    offset_at, _ = SHUFFLES[callee]
    arguments = patterns.args(call)
    if offset_at is None or offset_at >= len(arguments) or _width_is_32(unit, view, callee, call):
        return None
    offset = patterns.unwrap(arguments[offset_at])
    src = view.src
    lit = patterns.literal(src.text(offset)) if offset.type == "number_literal" else None
    statement = call.parent
    while statement is not None and statement.type not in ("expression_statement", "compound_statement",
                                                           "declaration", "for_statement", "return_statement"):
        statement = statement.parent
    if not lit or lit[0] != 16 or statement is None or statement.type != "expression_statement":
        return None
    following_offsets = _offsets(unit, view, statement.next_named_sibling, offset_at)
    previous_offsets = _offsets(unit, view, statement.prev_named_sibling, offset_at)
    if 8 not in following_offsets or 32 in previous_offsets:
        return None
    data = src.data
    pieces = [(offset.start_byte, offset.end_byte, "32")]
    maskless = (patterns.maskless_prefix(src, callee, call)
                if callee in patterns.MASKLESS and _drops_mask(unit, view, arguments) else None)
    if maskless:
        pieces.append(maskless)
    text, at = "", statement.start_byte
    for s, e, new in sorted(pieces):
        text += data[at:s].decode() + new
        at = e
    text += data[at:statement.end_byte].decode()
    line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
    indent = data[line_start:statement.start_byte].decode()
    indent = indent if not indent.strip() else " "
    start = view.base + statement.start_byte
    return Hit(start, start, f"an unrolled {callee} chain starts at offset 16 (line {unit.line_col(start)[0]}): "
               "on a 64-lane wavefront it needs a 32 step first; added, guarded by warpSize > 32",
               edits=(Edit(start=start, end=start, text=f"if (warpSize > 32) {text}\n{indent}"),))


def _offsets(unit: SourceFile, view: patterns.View, statement, offset_at: int) -> set[int | None]:
    """The offsets of the shuffles inside one statement; each statement searched once per file
    (a chain of thousands of shuffles in one expression must not cost a search per shuffle)."""
    if statement is None:
        return set()
    memo = unit.memo.setdefault("WAVE002.offsets", {})
    key = (view.base, statement.start_byte, statement.end_byte, offset_at)
    if key not in memo:
        memo[key] = {patterns.value(unit, view, patterns.args(c)[offset_at])
                     for _, c in patterns.calls(view, frozenset(SHUFFLES), statement)
                     if statement.start_byte <= c.start_byte < statement.end_byte and len(patterns.args(c)) > offset_at}
    return memo[key]


def _drops_mask(unit: SourceFile, view: patterns.View, arguments) -> bool:
    """The copied step drops its mask when WAVE001 or WAVE006 would drop the original's."""
    from porter.agents.microarch.rules.wave001_full_mask import is_full32, named_full32
    from porter.agents.microarch.rules.wave006_sync_portability import every_lane

    mask = patterns.unwrap(arguments[0]) if arguments else None
    return mask is not None and (is_full32(view.src, mask) or bool(named_full32(unit, view, mask))
                                 or every_lane(unit, view, mask))


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
