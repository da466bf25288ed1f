"""WAVE003: lane or warp arithmetic that assumes 32 lanes.

Why: a CDNA wavefront has 64 lanes (warpSize is 64 on gfx9, 32 only on RDNA), so
    `threadIdx.x % 32`, `& 31`, `& 0x1f` give a lane number that repeats within one wave,
    `/ 32` and `>> 5` (of a thread index, or of blockDim) count twice as many "warps" as there
    are, and `warp * 32` lands in the middle of a wave. `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32` and
    `const int warpSize = 32` carry the same assumption to every use. The hit is an error where
    the code says it means warps (a lane/warp/wave name, a shuffle or vote in the same function);
    otherwise a warning, since a 32 next to a thread index may be a tile width (an SGEMM warp
    tile) or a 32-bit word.

Before:
    #define WARP_SIZE 32
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x >> 5;
After:
    #if defined(__GFX9__) || (defined(__HIP__) && !defined(__HIP_DEVICE_COMPILE__))
    #define WARP_SIZE 64
    #else
    #define WARP_SIZE 32
    #endif
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;

Fix safety: safe where the code says it means warps (a lane/warp name, a shuffle or vote nearby, or a
    kernel the wave model converts to 64 lanes, WAVE011, where `tid < 32` becomes `tid < warpSize` too): the arithmetic becomes warpSize-based
    (`% warpSize`, `/ warpSize`, `& (warpSize - 1)`, `* warpSize`), right on both vendors. A
    warp-size constant (a name such as WARP_SIZE, kWarpSize, THREADS_PER_WARP, or any constant of
    32 the code uses as a shuffle width or a lane modulus, such as `WS`) becomes a
    preprocessor choice, because warpSize is not a compile-time constant from ROCm 7.0 and the
    constant may size arrays or template arguments: 64 in the gfx9 device pass and in the host pass
    of a HIP build (porter builds for gfx9; the host pass cannot see the device), 32 elsewhere (nvcc,
    RDNA). A log2 of the warp size beside it (LOG2_WARP_SIZE, WARP_SHIFT, LOG_WARP = 5) converts with
    it, to 6 under the same condition; a warp size written `1 << LOG2_WARP_SIZE` follows its log2.
    __AMDGCN_WAVEFRONT_SIZE is not used: clang 20 deprecated it and clang 22 does not define
    it. Left as warnings: a 32 next to a thread index where nothing says "warp" (a tile width or
    a 32-bit word), a constant named warpSize at file scope (it would collide with HIP's own
    warpSize), a template parameter's default, and a definition that shares its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import triggers, wave_model
from porter.agents.microarch.wave_sites import _constant_fix
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
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
TILE_32 = re.compile(r"(tiled_partition|thread_block_tile)\s*<\s*32\s*[,>]")
WARPISH = re.compile(r"(?i)warp|lane|wave")  # numWarps, laneIdx, wavesPerBlock: the name says warps
# operator -> (new operator, new literal text)
REWRITE = {"%": ("%", "warpSize"), "&": ("&", "(warpSize - 1)"), "/": ("/", "warpSize"),
           ">>": ("/", "warpSize"), "*": ("*", "warpSize"), "<<": ("*", "warpSize")}
_PRIMARY_OR_TIGHT = frozenset({"*", "/", "%"})


@rule(id="WAVE003", lang="cuda", severity="error", fix="safe",
      trigger=triggers.wave_words)
def lane_math(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _lane_math(unit, ctx))


def _lane_math(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from _warp_size_constants(unit, ctx)
    model = wave_model.analyse(unit, ctx)
    for q in model.quantities_of("compare"):
        if model.decision_at(q.start) == "convert64":
            literal = unit.data.rfind(b"32", q.start, q.end)
            yield Hit(q.start, q.end, f"`{' '.join(q.text.split())}` picks the first 32-lane warp of the block; in a "
                      "kernel converted to the 64-lane wave, the first wave is warpSize threads",
                      edits=(Edit(literal, literal + 2, "warpSize"),))
    for view in patterns.views(unit):
        # (threadIdx.x / 32) * 32 is one finding, at the outer expression. Expressions come in
        # source order, so one taken earlier covers this one exactly when it ends at or after it.
        taken_end = -1
        for expr in view.src.captures("(binary_expression) @e"):
            other = _thread_operand(view.src, expr)
            span = view.span(expr)
            if other is None or span[1] <= taken_end:
                continue
            taken_end = span[1]
            text = " ".join(view.src.text(expr).split())
            what = LANE_MATH[view.src.text(expr.child_by_field_name("operator"))][2]
            if _means_warps(view.src, expr, other) or model.decision_at(span[0]) == "convert64":
                edits = tuple(Edit(start=view.base + a, end=view.base + b, text=t) for a, b, t in _rewrite(view.src, expr))
                yield Hit(*span, f"`{text}` computes {what} (a CDNA wavefront has 64 lanes)", edits=edits)
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
    """The code says the 32 is the warp: a lane/warp name on either side, or warp intrinsics nearby.

    Not in a function that makes 32-thread cooperative-groups tiles: there a 32 next to a thread
    index is as likely the tile (which stays 32 threads on CDNA) as the warp.
    """
    function = patterns.enclosing(expr, "function_definition")
    if function is not None and _function_fact(src, function, "tiles"):
        return False
    if patterns.mentions(src, operand, patterns.WARP_ID_NAME):
        return True
    parent = expr.parent
    target = None
    if parent is not None and parent.type == "init_declarator":
        target = parent.child_by_field_name("declarator")
    elif parent is not None and parent.type == "assignment_expression":
        target = parent.child_by_field_name("left")
    if target is not None and (patterns.WARP_ID_NAME.match(src.text(target)) or WARPISH.search(src.text(target))):
        return True
    return function is not None and _function_fact(src, function, "warp calls")


def _function_fact(src: SourceFile, function, fact: str) -> bool:
    """Whether a function makes 32-thread tiles / calls warp intrinsics: found once per function,
    not once per expression (a function of 100,000 lane expressions would search itself each time)."""
    memo = src.memo.setdefault("WAVE003.functions", {})
    key = (function.start_byte, function.end_byte)
    if key not in memo:
        memo[key] = {"tiles": bool(TILE_32.search(src.text(function))),
                     "warp calls": any(src.text(fn) in patterns.WARP_INTRINSICS
                                       for fn in src.captures(_WARP_CALLS, function))}
    return memo[key][fact]


def log2_constants(unit: SourceFile) -> dict[str, list[patterns.Definition]]:
    """Constants that hold log2 of the warp size (5): LOG2_WARP_SIZE, WARP_SHIFT, LOG_WARP, ..."""
    found = {}
    for name, defs in patterns.definitions(unit).items():
        if patterns.LOG2_WARP_NAME.match(name) and {patterns.value(unit, d.view, d.value) for d in defs} == {5}:
            found[name] = defs
    return found


def _warp_size_constants(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    used_as_wave = wave_model.warp_constants(unit, [])  # `WS` used as a shuffle width or a lane modulus
    logs = log2_constants(unit)
    converted: set[str | None] = set()  # the decisions governing the warp-size definitions converted
    for name, defs in patterns.definitions(unit).items():
        if not (patterns.WARP_SIZE_NAME.match(name) or name in used_as_wave):
            continue
        values = {patterns.value(unit, d.view, d.value) for d in defs}
        if values != {32}:  # a 64 beside it (#if __GFX9__ ... #else ...) means the code already chooses
            continue
        for d in defs:
            converted.add(wave_model.decision_at(unit, ctx, d.view.span(d.value)[0]))
            if logs and any(d.view.src.text(i) in logs for i in [d.value, *d.view.src.captures("(identifier) @i", d.value)]):
                continue  # `(1U << LOG2_WARP_SIZE)` follows its log2 constant, rewritten below
            edits = _constant_fix(unit, d)
            said = (f"{name} = 32 hard-codes the NVIDIA warp size; a CDNA wavefront has 64 lanes: choose it per "
                    "target (64 under __GFX9__; warpSize is not a compile-time constant in ROCm 7)")
            if not edits:
                said += "; this definition is left for a person (it shares its line, is a template default, "\
                        "or names HIP's own warpSize at file scope)"
            yield Hit(*d.view.span(d.value), said, edits=edits,
                      severity=None if edits else Severity.warning)
    for name, defs in logs.items() if converted - {"keep32"} else ():
        for d in defs:  # log2 of the warp size converts with it: 6 where the warp size is 64
            six = re.sub(r"^5", "6", d.view.src.text(d.value)) if d.value.type == "number_literal" else "6"
            edits = _constant_fix(unit, d, six) if converted <= {"convert64", None} else ()
            said = (f"{name} = 5 is log2 of the NVIDIA warp size (32); it converts with the warp size: 6 on a "
                    "64-lane CDNA wavefront (a `tid >> 5` beside a 64-lane warp size splits each wave in two)")
            if not edits:
                said += "; this definition is left for a person"
            yield Hit(*d.view.span(d.value), said, edits=edits, severity=None if edits else Severity.warning)


def _rewrite(src: SourceFile, expr) -> list[tuple[int, int, str]]:
    """(start, end, text) edits, in `src` offsets, that make `expr` and the lane math inside it warpSize-based."""
    edits: list[tuple[int, int, str]] = []
    for inner in src.captures("(binary_expression) @e", expr):
        if _thread_operand(src, inner) is None:
            continue
        op_node = inner.child_by_field_name("operator")
        op = src.text(op_node)
        left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
        number, other = (right, left)
        if not (patterns.unwrap(right).type == "number_literal" and patterns.literal(src.text(patterns.unwrap(right)))
                and patterns.literal(src.text(patterns.unwrap(right)))[0] == LANE_MATH[op][0]):
            number, other = left, right
        new_op, new_literal = REWRITE[op]
        edits.append((number.start_byte, number.end_byte, new_literal))
        if new_op != op:
            edits.append((op_node.start_byte, op_node.end_byte, new_op))
            # `a + b >> 5` is (a + b) >> 5; as a division it needs the parentheses written out.
            if other.type in ("binary_expression", "conditional_expression") and \
                    src.text(other.child_by_field_name("operator") or other) not in _PRIMARY_OR_TIGHT:
                edits += [(other.start_byte, other.start_byte, "("), (other.end_byte, other.end_byte, ")")]
    return edits
