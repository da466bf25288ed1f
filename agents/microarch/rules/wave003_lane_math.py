"""WAVE003: lane or warp arithmetic that assumes 32 lanes.

Why: a CDNA wavefront has 64 lanes (warpSize is 64 on gfx9, 32 only on RDNA), so
    `threadIdx.x % 32`, `& 31`, `& 0x1f` give a lane number that repeats within one wave,
    `/ 32` and `>> 5` (of a thread index, or of blockDim) count twice as many "warps" as there
    are, and `warp * 32` lands in the middle of a wave. `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32` and
    `const int warpSize = 32` carry the same assumption to every use. The hit is an error where
    the code says it means warps (a lane/warp name, a shuffle or vote in the same function);
    otherwise a warning, since a 32 next to a thread index may be a tile width (an SGEMM warp
    tile) or a 32-bit word.

Before:
    #define WARP_SIZE 32
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x >> 5;
After:
    #define WARP_SIZE warpSize   // or 64 under __GFX9__ where a constant is needed
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;

Fix safety: none: warpSize is not a compile-time constant in HIP, so where the value sizes an array
    or a template argument the right rewrite depends on the code around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.state import Severity
from porter.syntax import SourceFile

# operator -> (the literal that means a 32-lane warp, may the literal sit on the left, what the expression computes)
LANE_MATH = {
    "%": (32, False, "the lane within a 32-lane warp; use % warpSize"),
    "&": (31, True, "the lane within a 32-lane warp; use % warpSize"),
    "/": (32, False, "a warp index or count for 32-lane warps; divide by warpSize"),
    ">>": (5, False, "a warp index or count for 32-lane warps; divide by warpSize"),
    "*": (32, True, "a warp's first thread for 32-lane warps; multiply by warpSize"),
    "<<": (5, False, "a warp's first thread for 32-lane warps; multiply by warpSize"),
}
BLOCK_DIM = re.compile(r"^(blockDim|hipBlockDim_[xyz])$")  # `blockDim.x / 32`: warps per block
DOUBT = "; the 32 may instead be a tile width or a 32-bit word here: check which before changing it"
_WARP_CALLS = "(call_expression function: (identifier) @fn)"


@rule(id="WAVE003", lang="cuda", severity="error")
def lane_math(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from _warp_size_constants(unit)
    for view in patterns.views(unit):
        taken: list[tuple[int, int]] = []  # (threadIdx.x / 32) * 32 is one finding, at the outer expression
        for expr in view.src.captures("(binary_expression) @e"):
            other = _thread_operand(view.src, expr)
            span = view.span(expr)
            if other is None or any(s <= span[0] and span[1] <= e for s, e in taken):
                continue
            taken.append(span)
            text = " ".join(view.src.text(expr).split())
            what = LANE_MATH[view.src.text(expr.child_by_field_name("operator"))][2]
            if _means_warps(view.src, expr, other):
                yield Hit(*span, f"`{text}` computes {what} (a CDNA wavefront has 64 lanes)")
            else:
                yield Hit(*span, f"`{text}` looks like {what} (a CDNA wavefront has 64 lanes){DOUBT}",
                          severity=Severity.warning)


def _thread_operand(src: SourceFile, expr):
    """The thread-index operand of `<thread index> <op> <32-lane literal>`, or None."""
    op = src.text(expr.child_by_field_name("operator"))
    if op not in LANE_MATH:
        return None
    literal, commutes, _ = LANE_MATH[op]
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    for number, other in ((right, left), (left, right)) if commutes else ((right, left),):
        number = patterns.unwrap(number)
        lit = patterns.literal(src.text(number)) if number.type == "number_literal" else None
        counts_warps = op in ("/", ">>") and patterns.mentions(src, other, BLOCK_DIM)
        if lit and lit[0] == literal and (patterns.indexes_threads(src, other) or counts_warps):
            return other
    return None


def _means_warps(src: SourceFile, expr, operand) -> bool:
    """The code says the 32 is the warp: a lane/warp name on either side, or warp intrinsics nearby."""
    if patterns.mentions(src, operand, patterns.WARP_ID_NAME):
        return True
    parent = expr.parent
    target = None
    if parent is not None and parent.type == "init_declarator":
        target = parent.child_by_field_name("declarator")
    elif parent is not None and parent.type == "assignment_expression":
        target = parent.child_by_field_name("left")
    if target is not None and patterns.WARP_ID_NAME.match(src.text(target)):
        return True
    function = patterns.enclosing(expr, "function_definition")
    return function is not None and any(
        src.text(fn) in patterns.WARP_INTRINSICS for fn in src.captures(_WARP_CALLS, function))


def _warp_size_constants(unit: SourceFile) -> Iterator[Hit]:
    for name, defs in patterns.definitions(unit).items():
        if not patterns.WARP_SIZE_NAME.match(name):
            continue
        values = {patterns.value(unit, d.view, d.value) for d in defs}
        if values != {32}:  # a 64 beside it (#if __GFX9__ ... #else ...) means the code already chooses
            continue
        for d in defs:
            yield Hit(*d.view.span(d.value), f"{name} = 32 hard-codes the NVIDIA warp size; a CDNA wavefront "
                      "has 64 lanes: use warpSize, or 64 under __GFX9__ where a constant is needed")
