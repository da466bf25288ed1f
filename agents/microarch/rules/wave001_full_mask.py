"""WAVE001: full 32-bit lane mask passed to a *_sync warp intrinsic.

Why: CDNA wavefronts have 64 lanes, so `0xffffffff` names lanes 0-31 only and a shuffle, vote or
    reduction under it leaves the upper half of the wave out. HIP's *_sync functions take 64-bit
    masks, and ROCm 6.3+ static_asserts that the mask type is 64 bits wide
    (hip/amd_detail/amd_warp_sync_functions.h), so `~0u`, `(unsigned)-1` and a plain `-1` (an int)
    are rejected at compile time as well.

Before:
    v += __shfl_down_sync(0xffffffff, v, offset);
    const unsigned FULL_MASK = 0xffffffff;   // only ever a *_sync mask
After:
    v += __shfl_down_sync(0xffffffffffffffffull, v, offset);
    const unsigned long long FULL_MASK = 0xffffffffffffffffull;

Fix safety: safe: a full mask stays a full mask, now of the whole wave. A named constant
    (`const unsigned FULL_MASK = ...`, `#define FULL_MASK ...`) is rewritten, literal and 32-bit
    type, only when every use of the name is the mask argument of a *_sync call; a name also used
    otherwise is reported only. The fix widens masks, nothing else: offsets and widths chosen for
    32 lanes are WAVE002's findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

WIDER = {"unsigned": "unsigned long long", "unsigned int": "unsigned long long", "int": "unsigned long long",
         "signed": "unsigned long long", "signed int": "unsigned long long",
         "uint32_t": "uint64_t", "int32_t": "uint64_t", "uint": "unsigned long long"}
# 64 bits on the LP64 hosts HIP targets; `auto` follows the widened literal.
WIDE = frozenset({"unsigned long long", "unsigned long long int", "unsigned long", "unsigned long int", "long",
                  "long long", "uint64_t", "int64_t", "size_t", "auto"})


def is_full32(src: SourceFile, node) -> bool:
    """A full mask for 32 lanes: 0xffffffff with any suffix, or all ones held in a 32-bit type."""
    node, wide = patterns.unwrap(node), False
    cast = patterns.cast_target(src, node)
    if cast:
        target, operand = cast
        node, wide = patterns.unwrap(operand), target not in patterns.NARROW_INT
    ones = _all_ones(src, node)
    if ones is None:
        return False
    value, suffix = ones
    return value == 0xFFFFFFFF or not (wide or "l" in suffix)


def _all_ones(src: SourceFile, node) -> tuple[int, str] | None:
    """(value, literal suffix) when `node` is -1, ~0 or 0xffffffff."""
    if node.type == "number_literal":
        lit = patterns.literal(src.text(node))
        return lit if lit and lit[0] in (-1, 0xFFFFFFFF) else None
    if node.type == "unary_expression":
        op, arg = src.text(node.child_by_field_name("operator")), node.child_by_field_name("argument")
        lit = patterns.literal(src.text(arg)) if arg.type == "number_literal" else None
        if lit and (op, lit[0]) in (("~", 0), ("-", 1)):
            return -1, lit[1]
    return None


@rule(id="WAVE001", lang="cuda", severity="error", fix="safe")
def full_mask(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    named: dict[str, list[tuple[int, str]]] = {}  # mask constant -> (file offset, callee) of its mask uses
    for view in patterns.views(unit):
        for callee, call in patterns.calls(view, patterns.MASKED_SYNC):
            arguments = patterns.args(call)
            if not arguments:
                continue
            mask = patterns.unwrap(arguments[0])
            if is_full32(view.src, mask):
                start, end = view.span(mask)
                yield Hit(start, end, f"`{view.src.text(mask)}` as the mask of {callee} names only lanes 0-31 of a "
                          "64-lane wavefront (and ROCm 6.3+ rejects 32-bit mask types): use a 64-bit full mask",
                          edits=(Edit(start=start, end=end, text=patterns.FULL_MASK_64),))
            elif mask.type == "identifier":
                named.setdefault(view.src.text(mask), []).append((view.span(mask)[0], callee))
    for name, uses in named.items():
        for d in patterns.definitions(unit).get(name, []):
            value = patterns.unwrap(d.value)
            if is_full32(d.view.src, value):
                yield _named_mask(unit, d, value, uses)


def _named_mask(unit: SourceFile, d: patterns.Definition, value, uses: list[tuple[int, str]]) -> Hit:
    start, end = d.view.span(value)
    where = ", ".join(f"{callee} at line {unit.line_col(at)[0]}" for at, callee in uses)
    message = (f"{d.name} = {d.view.src.text(value)} is a 32-bit lane mask, used as the mask of {where}: "
               "on a 64-lane wavefront it leaves lanes 32-63 out (and ROCm 6.3+ rejects 32-bit mask types)")
    mask_uses = {at for at, _ in uses}
    other = [s for s, _, tok in unit.identifiers() if tok == d.name and s != d.at and s not in mask_uses]
    if other:
        return Hit(start, end, f"{message}; {d.name} is also used at line {unit.line_col(other[0])[0]} as "
                   "something other than a mask, so it is left for a person")
    edits = [Edit(start=start, end=end, text=patterns.FULL_MASK_64)]
    if d.decl is not None:
        type_node = d.decl.child_by_field_name("type")
        declared = patterns.type_text(unit, type_node)
        if declared in WIDER and len(d.decl.children_by_field_name("declarator")) == 1:
            edits.append(Edit(start=type_node.start_byte, end=type_node.end_byte, text=WIDER[declared]))
        elif declared not in WIDE:
            return Hit(start, end, f"{message}; its type `{declared}` is left for a person to widen to 64 bits")
    return Hit(start, end, message, edits=tuple(edits))
