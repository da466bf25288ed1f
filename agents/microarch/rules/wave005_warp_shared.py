"""WAVE005: per-warp shared array sized for 32-lane warps.

Why: a block of N threads is N / 64 wavefronts on CDNA, not N / 32, and a lane-indexed scratch row
    needs 64 slots. `__shared__ float partial[BLOCK / 32]` keeps twice the slots the block uses,
    and the code that fills it (`partial[threadIdx.x / 32]`, one per "warp") is then indexed wrong;
    `__shared__ float row[WARP_SIZE]` with WARP_SIZE 32 overflows when all 64 lanes write it.
    A one-dimensional `[32]` is reported with a doubt stated: it is the classic "one slot per warp
    of a 1024-thread block", but may be a 32-wide tile.

Before:
    __shared__ float partial[BLOCK / 32];
    __shared__ float lane_row[WARP_SIZE];
After:
    __shared__ float partial[BLOCK / 64];     // 64: CDNA wavefront; warpSize is not constexpr
    __shared__ float lane_row[64];

Fix safety: none: the array and every index into it change together, and warpSize is not a
    compile-time constant in HIP.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

_SHARED = "(declaration declarator: (array_declarator) @array) @decl"
_SUBSCRIPTS = "(subscript_expression argument: (identifier) @array) @sub"
WAVES = "counts 32-lane warps; a CDNA wavefront has 64 lanes, so a block has half as many"
WAVE64 = "a CDNA wavefront has 64 lanes"
DOUBT = "nothing here says whether 32 is the warp size or a tile width"


@rule(id="WAVE005", lang="cuda", severity="warning")
def warp_shared(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in unit.matches(_SHARED):
        decl, array = m["decl"][0], m["array"][0]
        if not any(unit.text(c) == "__shared__" for c in decl.children):
            continue
        sizes = []
        while array.type == "array_declarator":
            if array.child_by_field_name("size") is not None:
                sizes.append(patterns.unwrap(array.child_by_field_name("size")))
            array = array.child_by_field_name("declarator")
        name, file = unit.text(array), patterns.views(unit)[0]
        for size in reversed(sizes):
            shown = f"__shared__ {name}[{unit.text(size)}]"
            if _counts_warps(unit, size):
                yield Hit(size.start_byte, size.end_byte, f"{shown} {WAVES}")
            elif warp := _warp_size_name(unit, size):
                yield Hit(size.start_byte, size.end_byte, f"{shown} has a slot per lane of a 32-lane warp{warp}; {WAVE64}")
            elif len(sizes) == 1 and size.type == "number_literal" and patterns.value(unit, file, size) == 32:
                index = _warp_index(unit, name)
                said = f"holds (indexed by `{index}`)" if index else "may hold"
                doubt = "" if index else f": {DOUBT}"
                yield Hit(size.start_byte, size.end_byte, f"{shown} {said} a slot per 32-lane warp of a 1024-thread "
                          f"block, or per lane; {WAVE64}{doubt}")


def _warp_index(unit: SourceFile, array: str) -> str:
    """An index of `array` that names a lane or a warp (`partial[warp]`), which says the 32 is the warp size."""
    for m in unit.matches(_SUBSCRIPTS):
        if unit.text(m["array"][0]) == array:
            indices = m["sub"][0].child_by_field_name("indices")
            if indices is not None and patterns.mentions(unit, indices, patterns.WARP_ID_NAME):
                return " ".join(unit.text(indices).strip("[]").split())
    return ""


def _counts_warps(unit: SourceFile, size) -> bool:
    """`X / 32`, `X >> 5`, `X / WARP_SIZE` with WARP_SIZE 32."""
    if size.type != "binary_expression":
        return False
    op, right = unit.text(size.child_by_field_name("operator")), patterns.unwrap(size.child_by_field_name("right"))
    divisor = patterns.value(unit, patterns.views(unit)[0], right)
    return (op, divisor) in (("/", 32), (">>", 5)) or (op == "/" and bool(_warp_size_name(unit, right)))


def _warp_size_name(unit: SourceFile, node) -> str:
    """A note such as ` (WARP_SIZE is 32)` when a warp-size constant in `node` is 32 here or is defined elsewhere."""
    for ident in unit.captures("(identifier) @i", node):
        name = unit.text(ident)
        if not patterns.WARP_SIZE_NAME.match(name):
            continue
        defs = patterns.definitions(unit).get(name)
        if not defs:
            return f" ({name} is defined outside this file; if it is 32)"
        if patterns.value(unit, patterns.views(unit)[0], ident) == 32:
            return f" ({name} is 32)"
    return ""
