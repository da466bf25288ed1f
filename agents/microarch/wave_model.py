"""The wave model: every quantity of a kernel that depends on the wave size, and one decision per kernel.

The WAVE rules used to fix what each of them saw, one expression at a time. On real code that gave
half-converted kernels: lane and warp ids made 64-based while the shuffle widths, the per-warp
slot counts and a `WS = 32` constant of the same algorithm stayed at 32 (wrong numbers), or a
`& 31` rewritten in a kernel with no cross-lane operation at all (a logical group of 32 broken).

This module gathers, per kernel of a unit (kernel_facts.kernels) and the functions and macros it
reaches (in the file and in the project headers it includes, RuleContext.sources), every quantity
that depends on the wave size, and gives the kernel one decision:

- keep32: keep 32-lane logical groups on the 64-lane wave: shuffles with width 32, ballots and
  votes taken over the caller's half of the wave, `warpSize` read as 32, lane ids modulo 32. The
  safe default: a kernel with no cross-lane operation keeps its 32-based math as it is.
- convert64: every quantity has a rewrite to the whole 64-lane wave, and all of them are made
  together (the WAVE rules, gated on this decision), and it pays: shared arrays sized by the warp
  size grow with it, so where the LDS they then take leaves room for fewer waves per CU than the
  32-lane form (porter.hardware: LDS per CU and per workgroup, waves per CU; lds_cost) the kernel
  keeps its 32-lane groups instead (or asks, when some quantity has no group form).
- ask: neither can be shown; the blocking quantities are listed.

A kernel parameter used as a shuffle width, the bound of a shuffle loop or a lane-math divisor
takes its value from the launches (`scan<<<g, b>>>(d, 32)`, hipLaunchKernelGGL, in the kernel's
file and the files including it): the launch arguments are quantities of the kernel (a 32 there
is a 32-lane warp, converted with the kernel to the device's warp size read at run time); launch
sites that pass different values, or none found, leave the kernel to a person.

Kernels that share a helper or a warp-size constant share the decision (a component). A helper
in an included header, already rewritten when the unit's rules run, imposes the strategy its text
shows. The same quantities, classified by `form`, are what wave_check verifies after the port.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter import hardware, kernel_facts
from porter.agents.microarch import wave_sites
from porter.rules import Hit, RuleContext
from porter.syntax import SourceFile

Decision = Literal["keep32", "convert64", "ask"]
# "32": written for 32-lane groups; "64": written for the whole 64-lane wave (warpSize, 64-bit
# masks); "wave": acts over whatever the wave is (a shuffle without width, a whole ballot);
# "group": a cross-lane call already in its keep-32 form; "neutral": right under either decision.
Form = Literal["32", "64", "wave", "group", "neutral"]

SHUFFLE_ARGS = {  # callee -> (offset or source-lane argument index, width argument index)
    "__shfl_sync": (None, 3), "__shfl_up_sync": (2, 3), "__shfl_down_sync": (2, 3), "__shfl_xor_sync": (2, 3),
    "__shfl": (None, 2), "__shfl_up": (1, 2), "__shfl_down": (1, 2), "__shfl_xor": (1, 2),
}
VOTES = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__ballot", "__any", "__all", "__activemask"})
MATCHES = frozenset({"__match_any_sync", "__match_all_sync"})
REDUCES = frozenset({"__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                     "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync"})
CROSS_LANE = frozenset(SHUFFLE_ARGS) | VOTES | MATCHES | REDUCES
# A keep-32 vote reads its own half of the 64-bit ballot: `__ballot(p) >> (__lane_id() & 32)`.
HALF = "(__lane_id() & 32)"
GROUP_LANE = "(__lane_id() & 31)"
# 32-based lane math on a thread index: operator -> the literal that means a 32-lane warp.
LANE_LITERALS = {"%": 32, "&": 31, "/": 32, ">>": 5, "*": 32, "<<": 5}
WARP_SIZE_OPS = frozenset({"%", "/", "*"})
_FUNCTIONS = "(function_definition) @fn"
_CALLS = "(call_expression function: [(identifier) @name (template_function name: (identifier) @name)]) @call"
_QUALIFIED_CALLS = "(call_expression function: (qualified_identifier) @fn) @call"
# The WMMA fragment API. Under rocWMMA (--matrix rocwmma) a fragment belongs to the whole 64-lane
# wave, so these calls are wave-wide collectives; porter's own MFMA helpers keep a 32-lane warp's
# fragment (MFMA004), so there they are not.
WMMA_FRAGMENT_OPS = re.compile(r"(?:^|::)(?:roc)?wmma::(?:load_matrix_sync|store_matrix_sync|mma_sync|fill_fragment)$")
_COMPARE = frozenset({"<", "<=", ">", ">=", "==", "!="})
BLOCK_DIM = re.compile(r"^(blockDim|hipBlockDim_[xyz])$")
TILE_32 = re.compile(r"(tiled_partition|thread_block_tile)\s*<\s*32\s*[,>]")


@dataclass(frozen=True)
class Quantity:
    """One wave-size-dependent expression: what it is, how it is written, whether each strategy takes it."""

    kind: str  # lane-math, warp-size, compare, shuffle, width, offset, vote, ballot-holder, bit-op, lane-bit,
    #            constant, shared-array, mask, lane-id, match, reduce, host-geometry, matrix (rocWMMA calls),
    #            launch-argument, wave-parameter (a kernel parameter whose launches disagree or are not found)
    path: str
    start: int
    end: int
    text: str
    form: Form
    convert: bool = True  # the WAVE rules rewrite it to the whole wave
    keep: bool = True  # it has a 32-lane-group form
    note: str = ""
    cross: bool = False  # a cross-lane operation whose lanes depend on the wave size

    @property
    def shown(self) -> str:
        return f"{self.kind} `{' '.join(self.text.split())[:60]}`"


@dataclass
class Function:
    """A function or function-like macro: where it is, what it calls, the constants it names."""

    name: str
    unit: SourceFile
    view: patterns.View
    node: Node  # function_definition, or the macro body's root
    kernel: bool
    calls: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class KernelWave:
    """One kernel's wave model and decision (shared with the kernels of its component)."""

    kernel: str
    path: str
    functions: tuple[str, ...]
    quantities: tuple[Quantity, ...]
    cross_lane: bool
    decision: Decision
    reason: str
    blocking: tuple[Quantity, ...] = ()
    helper: bool = False  # device code no kernel of this unit reaches (a header's helpers)

    def summary(self) -> str:
        kinds: dict[str, int] = {}
        for q in self.quantities:
            kinds[q.kind] = kinds.get(q.kind, 0) + 1
        return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"


@dataclass
class UnitWaves:
    """The unit's kernels, their components and decisions, and which byte ranges each decision governs."""

    kernels: list[KernelWave]
    spans: list[tuple[int, int, Decision, int]]  # (start, end, decision, component) of functions in this unit
    components: dict[int, list[Quantity]]
    decisions: dict[int, Decision]
    cross: dict[int, bool]
    constants: dict[str, Decision]  # warp-size constants of the unit, by the decision of the code using them

    def decision_at(self, offset: int) -> Decision | None:
        """The decision governing the code at `offset` of this unit (the innermost function around it)."""
        best = None
        for start, end, decision, _ in self.spans:
            if start <= offset < end and (best is None or start >= best[0]):
                best = (start, decision)
        return best[1] if best else None

    def quantities_of(self, kind: str) -> list[Quantity]:
        seen = {(q.start, q.end): q for qs in self.components.values() for q in qs if q.kind == kind}
        return [seen[k] for k in sorted(seen)]

    def component_at(self, offset: int) -> int | None:
        best = None
        for start, end, _, comp in self.spans:
            if start <= offset < end and (best is None or start >= best[0]):
                best = (start, comp)
        return best[1] if best else None


# --- functions and call graph ---------------------------------------------------------------


def _function_name(unit: SourceFile, fn: Node) -> str:
    declarator = fn.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in ("function_declarator",):
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return ""
    name = declarator.child_by_field_name("declarator")
    return unit.text(name).split("::")[-1] if name is not None else ""


def functions(unit: SourceFile) -> list[Function]:
    """Every function definition of the unit and every function-like macro body."""
    if "wave.functions" in unit.memo:
        return unit.memo["wave.functions"]
    found: list[Function] = []
    file = patterns.views(unit)[0]
    for fn in unit.captures(_FUNCTIONS):
        name = _function_name(unit, fn)
        if not name or patterns.enclosing(fn, "function_definition") is not None:
            continue  # a lambda-like nested definition belongs to its function
        kernel = any(c.type == "__global__" for c in fn.children)
        found.append(_function(unit, file, fn, name, kernel))
    bodies = {v.base: v for v in patterns.views(unit)[1:]}
    for m in unit.matches("(preproc_function_def name: (identifier) @name value: (preproc_arg) @body)"):
        view = bodies.get(m["body"][0].start_byte)
        if view is not None:
            found.append(_function(unit, view, view.src.tree.root_node, unit.text(m["name"][0]), False))
    unit.memo["wave.functions"] = found
    return found


def _function(unit: SourceFile, view: patterns.View, node: Node, name: str, kernel: bool) -> Function:
    f = Function(name, unit, view, node, kernel)
    src = view.src
    for m in src.matches(_CALLS, node):
        f.calls.add(src.text(m["name"][0]))
    for ident in src.captures("(identifier) @i", node):
        f.names.add(src.text(ident))
    return f


def warp_constants(unit: SourceFile, extra: list[SourceFile]) -> dict[str, int]:
    """Constants that hold the warp size (or a 31/5 derived from it): by name or by how they are used."""
    found: dict[str, int] = {}
    for src in [unit, *extra]:
        for name, defs in patterns.definitions(src).items():
            values = {patterns.value(src, d.view, d.value) for d in defs}
            if len(values) != 1:
                continue  # 64 beside 32 (#if __GFX9__ ...): the code already chooses per target
            (v,) = values
            if v == 32 and (patterns.WARP_SIZE_NAME.match(name) or _used_as_wave(src, name)):
                found[name] = v
    return found


def _used_as_wave(unit: SourceFile, name: str) -> bool:
    """A constant used as a shuffle width, or next to a thread index in lane math (`tid % WS`)."""
    for view in patterns.views(unit):
        src = view.src
        for callee, call in patterns.calls(view, frozenset(SHUFFLE_ARGS)):
            _, width_at = SHUFFLE_ARGS[callee]
            a = patterns.args(call)
            if width_at < len(a) and src.text(patterns.unwrap(a[width_at])) == name:
                return True
        for expr in src.captures("(binary_expression) @e"):
            op = src.text(expr.child_by_field_name("operator"))
            right = patterns.unwrap(expr.child_by_field_name("right"))
            if op in ("%", "/") and right.type == "identifier" and src.text(right) == name \
                    and patterns.indexes_threads(src, expr.child_by_field_name("left")):
                return True
    return False


# --- quantities -----------------------------------------------------------------------------


def _q(f: Function, node: Node, kind: str, form: Form, convert: bool = True, keep: bool = True, note: str = "",
       cross: bool | None = None) -> Quantity:
    start, end = f.view.span(node)
    if cross is None:
        cross = kind in ("shuffle", "vote", "match", "reduce") and form != "neutral"
    return Quantity(kind, f.unit.path, start, end, f.view.src.text(node), form, convert, keep, note, cross)


def quantities(f: Function, constants: dict[str, int], wave_fragments: bool = False) -> list[Quantity]:  # noqa: C901 - one pass over every wave-dependent form of a kernel; legacy, over the limit when ruff came in
    """The wave-dependent quantities written in one function or macro body; with `wave_fragments`,
    WMMA fragment calls count as wave-wide collectives (rocWMMA)."""
    src, node, found = f.view.src, f.node, []
    if wave_fragments:
        for m in src.matches(_QUALIFIED_CALLS, node):
            if WMMA_FRAGMENT_OPS.search(re.sub(r"\s+", "", src.text(m["fn"][0]))):
                found.append(_q(f, m["call"][0], "matrix", "neutral", cross=True,
                                note="a rocWMMA fragment spans the 64-lane wave"))
    taken: list[tuple[int, int]] = []
    ballot_args: set[int] = set()
    from_host = frozenset(p.name for p in wave_parameters(f))
    for m in src.matches(_CALLS, node):
        callee, call = src.text(m["name"][0]), m["call"][0]
        if callee in SHUFFLE_ARGS:
            found += _shuffle(f, callee, call, constants, from_host)
        elif callee in VOTES:
            group = _is_half(src, call)
            found.append(_q(f, call, "vote", "group" if group else "wave"))
            if callee in ("__ballot", "__ballot_sync", "__activemask") and not group:
                found += _ballot_use(f, call, ballot_args)
            if callee.endswith("_sync"):
                found += _mask(f, callee, call)
        elif callee in MATCHES:
            found.append(_q(f, call, "match", "group" if _is_half(src, call) else "wave"))
            found += _mask(f, callee, call)
        elif callee in REDUCES:
            found.append(_q(f, call, "reduce", "wave", keep=False,
                            note="a __reduce_*_sync over 32 of 64 lanes has no keep-32 form"))
            found += _mask(f, callee, call)
        elif callee == "__lane_id":
            parent = call.parent
            grouped = parent is not None and parent.type == "binary_expression" and \
                src.text(parent.child_by_field_name("operator")) == "&" and \
                src.text(parent.child_by_field_name("right")).strip() in ("31", "32")
            if not grouped:  # the hardware lane: masks built from it name lanes of the whole wave
                found.append(_q(f, call, "lane-id", "wave", cross=True))
    for expr in src.captures("(binary_expression) @e", node):
        if any(s <= expr.start_byte and expr.end_byte <= e for s, e in taken):
            continue
        q = _lane_math(f, expr, constants)
        if q is not None:
            found.append(q)
            taken.append((expr.start_byte, expr.end_byte))
    for ident in src.captures("(identifier) @i", node):
        text = src.text(ident)
        if text == "warpSize" and (ident.parent is None or ident.parent.type != "field_expression") \
                and not any(s <= ident.start_byte < e for s, e in taken):
            found.append(_q(f, ident, "warp-size", "64"))
        elif text in constants and not any(s <= ident.start_byte < e for s, e in taken):
            found.append(_q(f, ident, "constant-use", "neutral"))
    for expr in src.captures("(binary_expression) @e", node):
        if src.text(expr.child_by_field_name("operator")) != "<<":
            continue
        one = patterns.unwrap(expr.child_by_field_name("left"))
        lit = patterns.literal(src.text(one)) if one.type == "number_literal" else None
        if lit and lit[0] == 1 and patterns.is_lane_index(src, expr.child_by_field_name("right")):
            wide = "ll" in lit[1]
            found.append(_q(f, expr, "lane-bit", "neutral" if wide else "32", convert=_lane_bit_converts(src, expr)))
    return found


def _shuffle(f: Function, callee: str, call: Node, constants: dict[str, int],
             from_host: frozenset[str] = frozenset()) -> list[Quantity]:

    src, out = f.view.src, []
    offset_at, width_at = SHUFFLE_ARGS[callee]
    a = patterns.args(call)
    width = patterns.unwrap(a[width_at]) if width_at < len(a) else None
    if callee.endswith("_sync"):
        out += _mask(f, callee, call)
    if width is None:
        out.append(_q(f, call, "shuffle", "wave"))
    else:
        wtext = src.text(width)
        value = patterns.value(f.unit, f.view, width) if wtext not in constants else 32
        if wtext in ("warpSize", "64") or value == 64:
            out.append(_q(f, call, "shuffle", "wave"))
        elif wtext in constants:  # follows the warp-size constant: a group while it is 32, the wave at 64
            out.append(_q(f, call, "shuffle", "neutral", note=f"width {wtext}", cross=True))
        elif value == 32:
            out.append(_q(f, width, "width", "32"))
            out.append(_q(f, call, "shuffle", "group"))
        elif value is not None and value < 32:
            out.append(_q(f, call, "shuffle", "neutral"))  # a logical segment narrower than either wave
        elif wtext in from_host:  # the launch arguments carry its form (parameter_quantities)
            out.append(_q(f, call, "shuffle", "neutral", cross=True,
                          note=f"width `{wtext}`, a kernel parameter: as wide as its launch arguments"))
        else:
            out.append(_q(f, call, "shuffle", "wave", keep=False, note="a width porter cannot evaluate"))
    if offset_at is not None and offset_at < len(a) and (width is None or src.text(width) in ("warpSize",)):
        loop = wave_sites._loop_fix(f.unit, f.view, callee, call)
        chain = wave_sites._chain_fix(f.unit, f.view, callee, call)
        start, _ = wave_sites._start(f.unit, f.view, a[offset_at])
        if loop is not None or chain is not None:
            out.append(_q(f, a[offset_at], "offset", "32"))
        elif _follows_constant(f, a[offset_at], constants):
            out.append(_q(f, a[offset_at], "offset", "neutral", note="follows a warp-size constant"))
        elif start == 16 and not _previous_has_32(f, call, offset_at):
            out.append(_q(f, a[offset_at], "offset", "32", convert=False,
                          note="an offset tree from 16 that no WAVE002 form rewrites"))
    elif offset_at is None and len(a) > 1:
        lane = patterns.unwrap(a[1])
        if lane.type == "number_literal" and patterns.literal(src.text(lane)) and patterns.literal(src.text(lane))[0] == 31:
            out.append(_q(f, lane, "offset", "32", convert=False, note="source lane 31, the last of a 32-lane warp"))
    return out


def _follows_constant(f: Function, offset: Node, constants: dict[str, int]) -> bool:
    """The offset, or the loop variable it is, starts from an expression of a warp-size constant."""

    src, offset = f.view.src, patterns.unwrap(offset)
    if offset.type != "identifier":
        return any(src.text(i) in constants for i in src.captures("(identifier) @i", offset))
    loop = patterns.enclosing(offset, "for_statement")
    while loop is not None:
        for name, first in wave_sites._initialised(src, loop.child_by_field_name("initializer")):
            if name == src.text(offset) and first is not None:
                return any(src.text(i) in constants for i in [first, *src.captures("(identifier) @i", first)])
        loop = patterns.enclosing(loop, "for_statement")
    return False


def _previous_has_32(f: Function, call: Node, offset_at: int) -> bool:
    statement = call.parent
    while statement is not None and statement.type != "expression_statement":
        statement = statement.parent
    previous = statement.prev_named_sibling if statement is not None else None
    return previous is not None and "32" in f.view.src.text(previous)


def _is_half(src: SourceFile, call: Node) -> bool:
    """A vote in its keep-32 form: `(... >> (__lane_id() & 32))`."""
    node = call
    for _ in range(4):
        node = node.parent
        if node is None:
            return False
        if node.type == "binary_expression" and src.text(node.child_by_field_name("operator")) == ">>":
            return " ".join(src.text(node.child_by_field_name("right")).split()) == HALF
    return False


def _ballot_use(f: Function, call: Node, seen: set[int]) -> list[Quantity]:
    """A whole-wave ballot kept in 32 bits, or counted with a 32-bit bit operation."""

    src = f.view.src
    site = call
    while site.parent is not None and site.parent.type == "parenthesized_expression":
        site = site.parent
    narrowed, holder, type_node = wave_sites._narrowing(src, site)
    out = []
    if narrowed:
        fixable = type_node is not None or (site.parent is not None and site.parent.type == "argument_list"
                                             and src.text(site.parent.parent.child_by_field_name("function")) in patterns.SAME_ANSWER)
        out.append(_q(f, site.parent if site.parent is not None else call, "ballot-holder", "32", convert=fixable))
    if holder:
        fn = patterns.enclosing(call, "function_definition") or f.node
        for m in src.matches("(call_expression function: (identifier) @fn) @call", fn):
            name = src.text(m["fn"][0])
            if name in patterns.BIT32 and m["call"][0].start_byte not in seen:
                arguments = patterns.args(m["call"][0])
                if arguments and holder in {src.text(n) for n in src.captures("(identifier) @i", arguments[0])}:
                    seen.add(m["call"][0].start_byte)
                    out.append(_q(f, m["call"][0], "bit-op", "32", convert=name in patterns.SAME_ANSWER))
    return out


def _mask(f: Function, callee: str, call: Node) -> list[Quantity]:

    src = f.view.src
    a = patterns.args(call)
    if not a:
        return []
    mask = patterns.unwrap(a[0])
    if wave_sites.is_full32(src, mask) or mask_variable(f.unit, f.view, mask) == "full32":
        return [_q(f, mask, "mask", "32")]
    computed = computed_mask(src, mask)
    if computed is not None:
        _, value, shifts = computed
        return [_q(f, mask, "mask", "32", convert=shifts,
                   note="a lane mask computed in a 32-bit variable" + (
                       ": widened with its `1 <<` shifts" if shifts else f" from `{src.text(value)}`, not shown to widen"))]
    return []


def visible_declaration(src: SourceFile, ident: Node) -> Node | None:
    """The init_declarator of the local variable `ident` names where it is used: the innermost block
    around it that declares the name before the use (a loop's own `unsigned mask = ...;` included)."""
    name = src.text(ident)
    node = ident.parent
    while node is not None and node.type != "function_definition":
        if node.type in ("compound_statement", "for_statement"):
            found = None
            for child in node.named_children:
                if child.start_byte >= ident.start_byte:
                    break
                decls = [child] if child.type == "declaration" else \
                    [c for c in child.named_children if c.type == "declaration"] if node.type == "for_statement" else []
                for decl in decls:
                    for d in decl.children_by_field_name("declarator"):
                        if d.type == "init_declarator" and src.text(d.child_by_field_name("declarator")) == name:
                            found = d
            if found is not None:
                return found
        node = node.parent
    return None


def computed_mask(src: SourceFile, mask: Node) -> tuple[Node, Node, bool] | None:
    """A mask variable declared with a 32-bit type and computed (not a full mask): (declarator, value,
    whether its value is built only of `1 << n` shifts, which widen exactly with `1ull`)."""
    if mask.type != "identifier":
        return None
    d = visible_declaration(src, mask)
    if d is None:
        return None
    value = patterns.unwrap(d.child_by_field_name("value"))
    if wave_sites.is_full32(src, value) or patterns.type_text(src, d.parent.child_by_field_name("type")) not in patterns.NARROW_INT:
        return None
    fn = patterns.enclosing(mask, "function_definition")
    name = src.text(mask)
    for m in src.matches("(assignment_expression left: (identifier) @n) @a", fn) if fn is not None else []:
        if src.text(m["n"][0]) == name:
            return d, value, False  # set again elsewhere: not one value
    literals = [n for n in src.captures("(number_literal) @n", value)] + ([value] if value.type == "number_literal" else [])
    ones = [n for n in literals if n.parent is not None and n.parent.type == "binary_expression"
            and src.text(n.parent.child_by_field_name("operator")) == "<<" and n.parent.child_by_field_name("left") == n
            and patterns.literal(src.text(n)) and patterns.literal(src.text(n))[0] == 1]
    small = all((patterns.literal(src.text(n)) or (1 << 32,))[0] <= 1 for n in literals)
    return d, value, bool(ones) and small


def mask_variable(unit: SourceFile, view: patterns.View, mask: Node) -> str:
    """How a mask name is set: "full32" (every initializer a 32-bit all-ones), "full64", or ""."""

    if mask.type != "identifier":
        return ""
    name = view.src.text(mask)
    fn = patterns.enclosing(mask, "function_definition")
    values = []
    local = visible_declaration(view.src, mask)
    if local is not None and not any(view.src.text(m["n"][0]) == name for m in view.src.matches(
            "(assignment_expression left: (identifier) @n)", fn)):
        values = [local.child_by_field_name("value")]
    elif fn is not None:
        for m in view.src.matches("""[(init_declarator declarator: (identifier) @n value: (_) @v)
                                      (optional_parameter_declaration declarator: (identifier) @n default_value: (_) @v)
                                      (assignment_expression left: (identifier) @n right: (_) @v)]""", fn):
            if view.src.text(m["n"][0]) == name:
                values.append(m["v"][0])
        for m in view.src.matches("(parameter_declaration declarator: (identifier) @n)", fn):
            if view.src.text(m["n"][0]) == name:
                return ""  # a parameter without a default: whatever the caller passes
    if not values:
        defs = patterns.definitions(unit).get(name, [])
        values = [d.value for d in defs if d.view.base == 0]
    if not values:
        return ""
    if all(wave_sites.is_full32(view.src, patterns.unwrap(v)) for v in values):
        return "full32"
    if all(wave_sites.every_lane(unit, view, v) for v in values):
        return "full64"
    return ""


def _lane_math(f: Function, expr: Node, constants: dict[str, int]) -> Quantity | None:
    src = f.view.src
    op = src.text(expr.child_by_field_name("operator"))
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    r, lhs = patterns.unwrap(right), patterns.unwrap(left)
    rtext = " ".join(src.text(r).split())
    threads = patterns.indexes_threads(src, left) or (op in ("/", ">>") and patterns.mentions(src, left, BLOCK_DIM))
    if op in _COMPARE:
        lit = patterns.literal(src.text(r)) if r.type == "number_literal" else None
        if lit and lit[0] == 32 and patterns.indexes_threads(src, left) and not patterns.mentions(src, left, patterns.WARP_ID_NAME):
            return _q(f, expr, "compare", "32", note="a thread index against 32: the first warp")
        return None
    if op in WARP_SIZE_OPS and rtext == "warpSize" and threads:
        return _q(f, expr, "lane-math", "64")
    if op == "&" and rtext in ("(warpSize - 1)", "(warpSize-1)") and threads:
        return _q(f, expr, "lane-math", "64")
    if op in LANE_LITERALS:
        for number, other in ((r, lhs), (lhs, r)) if op in ("&", "*") else ((r, lhs),):
            lit = patterns.literal(src.text(number)) if number.type == "number_literal" else None
            counts = patterns.indexes_threads(src, other) or (op in ("/", ">>") and patterns.mentions(src, other, BLOCK_DIM))
            if lit and lit[0] == LANE_LITERALS[op] and counts:
                return _q(f, expr, "lane-math", "32")
            if op in ("%", "/", "*") and number.type == "identifier" and src.text(number) in constants and counts:
                return _q(f, expr, "lane-math", "neutral", note=f"follows {src.text(number)}")
    return None


def _lane_bit_converts(src: SourceFile, expr: Node) -> bool:
    holder = expr
    while holder.parent is not None and holder.parent.type in ("binary_expression", "parenthesized_expression",
                                                                 "unary_expression", "conditional_expression"):
        holder = holder.parent
    parent = holder.parent
    if parent is not None and parent.type == "assignment_expression":
        return False
    if parent is not None and parent.type == "init_declarator":
        decl = parent.parent
        if patterns.type_text(src, decl.child_by_field_name("type")) in patterns.NARROW_INT:
            return decl.type == "declaration" and len(decl.children_by_field_name("declarator")) == 1 \
                and patterns.enclosing(decl, "function_definition") is not None
    return True


def constant_quantities(unit: SourceFile, constants: dict[str, int]) -> dict[str, Quantity]:
    """The definition of each warp-size constant of this unit: rewritable per target (WAVE003) or not."""

    found = {}
    for name in constants:
        for d in patterns.definitions(unit).get(name, []):
            start, end = d.view.span(d.value)
            found[name] = Quantity("constant", unit.path, start, end, f"{name} = {d.view.src.text(d.value)}", "32",
                                   convert=bool(wave_sites._constant_fix(unit, d)),
                                   note="" if wave_sites._constant_fix(unit, d) else "a definition WAVE003 cannot choose per target")
    return found


def array_quantities(unit: SourceFile, kernel: kernel_facts.Kernel, constants: dict[str, int]) -> list[Quantity]:
    """Shared arrays of the kernel sized per lane or per warp of a 32-lane warp."""

    found = []
    for a in kernel.arrays:
        for size in a.dim_nodes:
            size = patterns.unwrap(size)
            text = unit.text(size)
            if wave_sites._counts_warps(unit, size):
                found.append(Quantity("shared-array", unit.path, size.start_byte, size.end_byte,
                                      f"{a.name}[{text}]", "neutral", note="a slot per warp: enough slots for 64-lane waves"))
            elif text in constants:
                found.append(Quantity("shared-array", unit.path, size.start_byte, size.end_byte,
                                      f"{a.name}[{text}]", "neutral", note=f"follows {text}"))
            elif len(a.dim_nodes) == 1 and size.type == "number_literal" and patterns.literal(text) \
                    and patterns.literal(text)[0] == 32:
                kinds = wave_sites._index_kinds(unit, a.name)
                if "lane" in kinds:
                    found.append(Quantity("shared-array", unit.path, size.start_byte, size.end_byte, f"{a.name}[32]",
                                          "32", convert=not wave_sites._sizeof_taken(unit, a.name)))
                elif _per_thread(unit, a.name):
                    found.append(Quantity("shared-array", unit.path, size.start_byte, size.end_byte, f"{a.name}[32]",
                                          "32", convert=False, note="a slot per thread of a 32-thread block"))
    return found


def _per_thread(unit: SourceFile, array: str) -> bool:
    """`array[threadIdx.x] = ...`: a 32-slot array written one slot per thread, outside any `tid < 32` guard."""
    for m in unit.matches("(assignment_expression left: (subscript_expression argument: (identifier) @a) @s)"):
        if unit.text(m["a"][0]) != array:
            continue
        indices = m["s"][0].child_by_field_name("indices")
        if indices is None or " ".join(unit.text(indices).strip("[]").split()) not in ("threadIdx.x", "hipThreadIdx_x"):
            continue
        node, guarded = m["s"][0], False
        while node is not None and node.type != "function_definition":
            if node.type == "if_statement" and "32" in unit.text(node.child_by_field_name("condition")):
                guarded = True
            node = node.parent
        if not guarded:
            return True
    return False


def host_quantities(unit: SourceFile, kernel: str, constants: dict[str, int]) -> list[Quantity]:
    """Launch geometry of `kernel` in this unit that divides or multiplies by the warp size."""
    found = []
    seen: set[tuple[int, int]] = set()
    for launch in kernel_facts.launches(unit):
        if launch.kernel != kernel:
            continue
        for at, arg in enumerate(launch.config[:3]):
            shared = at == 2  # shared bytes: followed through their initializers (`n = threads / 32; bytes = n * 4`)
            for node in _with_initializers(unit, arg, 3 if shared else 1):
                for expr in [node, *unit.captures("(binary_expression) @e", node)]:
                    if expr.type != "binary_expression" or (expr.start_byte, expr.end_byte) in seen:
                        continue
                    seen.add((expr.start_byte, expr.end_byte))  # an initializer shared by two launches counts once
                    op = unit.text(expr.child_by_field_name("operator"))
                    r = patterns.unwrap(expr.child_by_field_name("right"))
                    value = patterns.literal(unit.text(r)) if r.type == "number_literal" else None
                    if op in ("/", "*", ">>") and r.type == "identifier" and unit.text(r) in constants:
                        found.append(Quantity("host-geometry", unit.path, expr.start_byte, expr.end_byte,
                                              unit.text(expr), "neutral", note=f"follows {unit.text(r)}"))
                    elif shared and (op, value[0] if value else None) in (("/", 32), (">>", 5)):
                        found.append(Quantity("host-geometry", unit.path, expr.start_byte, expr.end_byte,
                                              unit.text(expr), "neutral",
                                              note="shared bytes sized per 32-thread warp: slots enough for 64-lane waves"))
                    elif (op, value[0] if value else None) in (("/", 32), ("*", 32), (">>", 5)):
                        found.append(Quantity("host-geometry", unit.path, expr.start_byte, expr.end_byte,
                                              unit.text(expr), "32", convert=False,
                                              note="host code cannot read the device's warpSize"))
        if len(launch.config) > 1 and kernel_facts.dim3_value(unit, launch.config[1]) == (32, 1, 1):
            block = launch.config[1]
            found.append(Quantity("host-geometry", unit.path, block.start_byte, block.end_byte,
                                  f"<<<..., {unit.text(block)}>>>", "32", convert=False,
                                  note="launched with blocks of 32 threads: one 32-lane group, half a 64-lane wave"))
        found += _host_warp_size(unit, launch)
    if any(launch.kernel == kernel for launch in kernel_facts.launches(unit)):
        found += host_checks(unit)
    return found


def _host_warp_size(unit: SourceFile, launch: kernel_facts.Launch) -> list[Quantity]:
    """A host variable named as the warp size and set to 32 (`int warp_size = 32;`) that shapes the
    launch or is passed to the kernel: the host lays the work out per 32-thread warp."""
    fn = patterns.enclosing(launch.call, "function_definition")
    if fn is None:
        return []
    thirty_two = {}
    for d in unit.captures("(init_declarator) @d", fn):
        name, value = d.child_by_field_name("declarator"), patterns.unwrap(d.child_by_field_name("value"))
        if name.type == "identifier" and patterns.WARP_SIZE_NAME.match(unit.text(name)) \
                and value.type == "number_literal" and (patterns.literal(unit.text(value)) or (0,))[0] == 32:
            thirty_two[unit.text(name)] = d
    if not thirty_two:
        return []
    used = {unit.text(i) for i in unit.captures("(identifier) @i", launch.call)}
    for d in unit.captures("[(init_declarator) (function_declarator)] @d", fn):  # `dim3 block(N * warp_size, 1)`
        name = d.child_by_field_name("declarator")
        if name is not None and unit.text(name) in used:
            used |= {unit.text(i) for i in unit.captures("(identifier) @i", d)}
    return [Quantity("host-geometry", unit.path, d.start_byte, d.end_byte, unit.text(d), "32", convert=False,
                     note="the host's warp size, 32, shapes the launch or the kernel's arguments")
            for name, d in thirty_two.items() if name in used]


# --- kernel parameters that carry the wave size from the host -------------------------------

# What a ROCm program writes on the host for the wave size: HIP has no host `warpSize`, and the
# HIP porting guide's answer is the device's attribute (hipDeviceProp_t::warpSize, or
# hipDeviceGetAttribute(hipDeviceAttributeWarpSize)), read at run time for the current device. An
# immediately invoked lambda keeps the query inside the launch argument it replaces: no name is
# declared in the caller's scope, and it stays right wherever the launch is (a loop, a branch). Its
# only top-level commas are inside parentheses, so it is one argument of a macro too.
HOST_WAVE_SIZE = ("[] { int device = 0; int wave = 0; (void)hipGetDevice(&device); "
                  "(void)hipDeviceGetAttribute(&wave, hipDeviceAttributeWarpSize, device); return wave; }()")
_HOST_WAVE_QUERY = re.compile(r"\bhipDeviceAttributeWarpSize\b|\bcudaDevAttrWarpSize\b|\.\s*warpSize\b|\bwarpSize\b")
LAUNCH_MACROS = frozenset({"hipLaunchKernelGGL"})  # hipLaunchKernelGGL(kernel, grid, block, shared bytes, stream, args...)


@dataclass(frozen=True)
class WaveParameter:
    """A kernel parameter the kernel uses as a wave quantity: a shuffle width, the bound of a
    shuffle loop, or a lane-math divisor; its value comes from the launch sites."""

    name: str
    index: int
    declaration: Node
    use: str  # "shuffle width", "shuffle loop bound", "lane-math divisor"


@dataclass(frozen=True)
class LaunchSite:
    unit: SourceFile
    call: Node
    args: tuple[Node, ...]  # the kernel's arguments, in parameter order


def _parameters(src: SourceFile, fn: Node) -> list[tuple[str, Node]]:
    declarator = fn.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters") if declarator is not None else None
    out = []
    for p in params.named_children if params is not None else []:
        if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        name = p.child_by_field_name("declarator")
        while name is not None and name.type != "identifier":
            name = name.child_by_field_name("declarator") or next(
                (c for c in name.named_children if c.type == "identifier"), None)
        out.append((src.text(name) if name is not None else "", p))
    return out


def wave_parameters(f: Function) -> list[WaveParameter]:
    """The parameters of kernel `f` that its code uses as wave quantities (its value is the host's)."""
    if not f.kernel or f.view.base != 0:
        return []
    src = f.view.src
    params = {name: (i, decl) for i, (name, decl) in enumerate(_parameters(src, f.node)) if name}
    uses: dict[str, str] = {}

    def param(node: Node | None) -> str | None:
        node = patterns.unwrap(node) if node is not None else None
        return src.text(node) if node is not None and node.type == "identifier" and src.text(node) in params else None

    for m in src.matches(_CALLS, f.node):
        callee, call = src.text(m["name"][0]), m["call"][0]
        if callee not in SHUFFLE_ARGS:
            continue
        offset_at, width_at = SHUFFLE_ARGS[callee]
        a = patterns.args(call)
        width = param(a[width_at]) if width_at < len(a) else None
        if width:
            uses.setdefault(width, "shuffle width")
        offset = patterns.unwrap(a[offset_at]) if offset_at is not None and offset_at < len(a) else None
        loop = patterns.enclosing(call, "for_statement")
        while offset is not None and offset.type == "identifier" and loop is not None:
            cond = patterns.unwrap(loop.child_by_field_name("condition")) if loop.child_by_field_name("condition") else None
            if cond is not None and cond.type == "binary_expression" and src.text(cond.child_by_field_name("operator")) in _COMPARE:
                sides = [cond.child_by_field_name("left"), cond.child_by_field_name("right")]
                if src.text(offset) in [src.text(patterns.unwrap(s)) for s in sides]:
                    for s in sides:
                        if param(s):
                            uses.setdefault(param(s) or "", "shuffle loop bound")
                    break
            loop = patterns.enclosing(loop, "for_statement")
    for expr in src.captures("(binary_expression) @e", f.node):
        op = src.text(expr.child_by_field_name("operator"))
        right = patterns.unwrap(expr.child_by_field_name("right"))
        if op == "&" and right.type == "binary_expression" and src.text(right.child_by_field_name("operator")) == "-":
            right = patterns.unwrap(right.child_by_field_name("left"))
        if op in ("%", "/", "&") and param(right) and patterns.indexes_threads(src, expr.child_by_field_name("left")):
            uses.setdefault(param(right) or "", "lane-math divisor")
    return [WaveParameter(name, params[name][0], params[name][1], use) for name, use in sorted(uses.items(),
            key=lambda item: params[item[0]][0])]


def _launched(unit: SourceFile, node: Node) -> str:
    node = patterns.unwrap(node)
    if node.type == "call_expression" and unit.text(node.child_by_field_name("function")) == "HIP_KERNEL_NAME":
        a = patterns.args(node)
        node = a[0] if a else node
    if node.type == "template_function":
        node = node.child_by_field_name("name")
    return unit.text(node).split("::")[-1] if node.type in ("identifier", "qualified_identifier") else ""


def launch_sites(unit: SourceFile, kernel: str) -> list[LaunchSite]:
    """Where `unit` launches `kernel`: `kernel<<<...>>>(args)` and hipLaunchKernelGGL(kernel, ..., args)."""
    sites = [LaunchSite(unit, launch.call, tuple(patterns.args(launch.call)))
             for launch in kernel_facts.launches(unit) if launch.kernel == kernel]
    for m in unit.matches("(call_expression function: (identifier) @fn) @call"):
        if unit.text(m["fn"][0]) in LAUNCH_MACROS:
            a = patterns.args(m["call"][0])
            if a and _launched(unit, a[0]) == kernel:
                sites.append(LaunchSite(unit, m["call"][0], tuple(a[5:])))
    return sites


def _host_value(unit: SourceFile, node: Node, depth: int = 0) -> tuple[Form, int | None]:
    """How a launch argument holds the wave size: ("32", 32) for a literal 32 or a host constant or
    macro equal to 32 (or named as the warp size), ("64", None) for a run-time query of the device's
    warp size, ("neutral", n) for a value below 32, ("wave", value) for anything else."""
    node = patterns.unwrap(node)
    text = unit.text(node)
    if _HOST_WAVE_QUERY.search(text):
        return "64", None
    v = patterns.value(unit, patterns.views(unit)[0], node)
    if v is None and node.type == "identifier" and depth < 3:
        fn = patterns.enclosing(node, "function_definition")
        values = kernel_facts.local_initializers(unit, fn).get(text, []) if fn is not None else []
        if len(values) == 1 and values[0] is not None:
            return _host_value(unit, values[0], depth + 1)
    if v == 32 or (v is None and node.type == "identifier" and patterns.WARP_SIZE_NAME.match(text)):
        return "32", 32
    if v is not None and 0 < v < 32:
        return "neutral", v
    return "wave", v


def parameter_quantities(f: Function, units: list[SourceFile]) -> list[Quantity]:
    """The launch arguments that give the kernel's wave parameters their values, in `units` (the
    kernel's file and the files including it): a literal 32 there is a wave quantity of the kernel,
    rewritten to the device's warp size with the rest of a convert64 kernel (WAVE011), left for
    keep32. Launch sites that disagree, or none found, leave the kernel to a person."""
    found: list[Quantity] = []
    wave_params = wave_parameters(f)
    if not wave_params:
        return found
    sites = [s for u in units for s in launch_sites(u, f.name)]
    for p in wave_params:
        start, end = f.view.span(p.declaration)
        values: set[int | None] = set()
        if p.use == "lane-math divisor" and not patterns.WARP_SIZE_NAME.match(p.name) and not any(
                p.index < len(s.args) and _host_value(s.unit, s.args[p.index])[0] in ("32", "64") for s in sites):
            continue  # `tid % width` of an image: a divisor is a wave quantity where the host passes the warp size
        for site in sites:
            if p.index >= len(site.args):
                found.append(Quantity("launch-argument", site.unit.path, site.call.start_byte, site.call.end_byte,
                                      site.unit.text(site.call), "wave", convert=False, keep=False,
                                      note=f"`{p.name}` ({p.use}) left to its default at this launch"))
                values.add(None)
                continue
            arg = site.args[p.index]
            form, value = _host_value(site.unit, arg)
            values.add(value if form != "64" else 64)
            note = {"32": f"the host passes 32 as `{p.name}` ({p.use}): the kernel's 32-lane warp",
                    "64": f"the host passes the device's warp size as `{p.name}` ({p.use})",
                    "neutral": f"the host passes {value} as `{p.name}` ({p.use}): narrower than either wave",
                    "wave": f"the host passes `{' '.join(site.unit.text(arg).split())}` as `{p.name}` ({p.use}), "
                            "a value porter cannot evaluate"}.get(form, "")
            found.append(Quantity("launch-argument", site.unit.path, arg.start_byte, arg.end_byte,
                                  site.unit.text(arg), form, convert=form != "wave", keep=form != "wave", note=note))
        if not sites:
            found.append(Quantity("wave-parameter", f.unit.path, start, end, f.view.src.text(p.declaration), "wave",
                                  convert=False, keep=False,
                                  note=f"`{p.name}` ({p.use}) comes from the host, and no launch of the kernel was found"))
        elif len(values) > 1:
            shown = ", ".join(sorted("default" if v is None else str(v) for v in values))
            found.append(Quantity("wave-parameter", f.unit.path, start, end, f.view.src.text(p.declaration), "wave",
                                  convert=False, keep=False,
                                  note=f"`{p.name}` ({p.use}): its launch sites pass different values ({shown})"))
    return found


def host_checks(unit: SourceFile) -> list[Quantity]:
    """Host code of a unit that launches the kernel laying out inputs or checking results per 32
    threads: `i % 32`, `i & 31`, `i / 32`, `i >> 5` on a loop index of a host function."""
    if "wave.host_checks" in unit.memo:
        return unit.memo["wave.host_checks"]
    found = []
    for f in functions(unit):
        if f.kernel or f.view.base != 0 or _device_code(unit, f.node):
            continue
        src = f.view.src
        indexes = {src.text(m["n"][0]) for m in src.matches(
            "(for_statement initializer: [(declaration declarator: (init_declarator declarator: (identifier) @n))"
            " (assignment_expression left: (identifier) @n)])", f.node)}
        for expr in src.captures("(binary_expression) @e", f.node):
            op = src.text(expr.child_by_field_name("operator"))
            left = patterns.unwrap(expr.child_by_field_name("left"))
            right = patterns.unwrap(expr.child_by_field_name("right"))
            lit = patterns.literal(src.text(right)) if right.type == "number_literal" else None
            if lit and (op, lit[0]) in (("%", 32), ("&", 31), ("/", 32), (">>", 5)) \
                    and left.type == "identifier" and src.text(left) in indexes:
                found.append(Quantity("host-check", unit.path, expr.start_byte, expr.end_byte, src.text(expr), "32",
                                      convert=False, note="host code lays out or checks the kernel's data per 32 threads"))
    unit.memo["wave.host_checks"] = found
    return found


def _device_code(unit: SourceFile, fn: Node) -> bool:
    return any(c.type in ("__device__", "__global__") or unit.text(c) in ("__device__", "__global__")
               for c in fn.children if c.type != "compound_statement")


def _with_initializers(unit: SourceFile, node: Node, depth: int = 1) -> list[Node]:
    """The expression and, for the names in it, their initializers in the enclosing function
    (and theirs, `depth` levels deep)."""
    out = [node]
    fn = patterns.enclosing(node, "function_definition")
    if fn is None or depth < 1:
        return out
    inits = kernel_facts.local_initializers(unit, fn)
    for ident in [node] if node.type == "identifier" else unit.captures("(identifier) @i", node):
        for value in inits.get(unit.text(ident), []):
            if value is not None and value not in out:
                out += [v for v in _with_initializers(unit, value, depth - 1) if v not in out]
    return out


# --- decisions ------------------------------------------------------------------------------


def imposed(header: SourceFile, name: str) -> Form | None:
    """The strategy an already-rewritten header helper shows: "32" (kept groups), "64", or None (neutral)."""
    for f in functions(header):
        if f.name != name:
            continue
        forms = {q.form for q in quantities(f, warp_constants(header, []))}
        if "group" in forms:
            return "32"
        if "64" in forms or "wave" in forms:
            return "64" if not forms & {"32"} else None
    return None


def analyse(unit: SourceFile, ctx: RuleContext | None = None) -> UnitWaves:  # noqa: C901 - the per-kernel decision table; legacy, over the limit when ruff came in
    """The unit's wave model, memoized on the unit."""
    if "wave.model" in unit.memo:
        return unit.memo["wave.model"]
    ctx = ctx or RuleContext()
    headers = _headers(unit, ctx)
    constants = warp_constants(unit, headers)
    from porter.rules import HEADER_SUFFIXES
    includers = ctx.includers(unit) if any(unit.path.endswith(s) for s in HEADER_SUFFIXES) \
        and any(k.kernel for k in functions(unit)) else []
    fns = functions(unit)
    by_name: dict[str, list[int]] = {}
    for i, f in enumerate(fns):
        by_name.setdefault(f.name, []).append(i)
    parent = list(range(len(fns)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        parent[find(i)] = find(j)

    owners: dict[str, int] = {}
    # Sets are walked sorted: the order of the unions picks each component's root, which names a
    # helper component in the report; a set's order changes with the process (PYTHONHASHSEED).
    for i, f in enumerate(fns):
        for callee in sorted(f.calls):
            for j in by_name.get(callee, []):
                if not fns[j].kernel:  # a launch is not a call: kernels decide on their own
                    union(i, j)
        for name in sorted(f.names & set(constants)):
            if name in owners:
                union(i, owners[name])
            owners.setdefault(name, i)
    wave_fragments = ctx.options.matrix == "rocwmma"
    per_fn = [quantities(f, constants, wave_fragments) for f in fns]
    comps: dict[int, list[Quantity]] = {}
    kernels_of: dict[int, list[int]] = {}
    for i, f in enumerate(fns):
        comps.setdefault(find(i), []).extend(per_fn[i])
        if f.kernel:
            kernels_of.setdefault(find(i), []).append(i)
    defined = constant_quantities(unit, constants)
    for name, i in owners.items():
        if name in defined:
            comps.setdefault(find(i), []).append(defined[name])
    facts = {k.name: k for k in kernel_facts.kernels(unit)}
    for comp, members in kernels_of.items():
        for i in members:
            k = facts.get(fns[i].name)
            if k is not None:
                comps[comp] += array_quantities(unit, k, constants)
            comps[comp] += host_quantities(unit, fns[i].name, constants)
            comps[comp] += parameter_quantities(fns[i], [unit, *includers])
            for other in includers:  # a header's kernel, launched and checked by the files including it
                comps[comp] += host_quantities(other, fns[i].name, warp_constants(other, []))
    forced: dict[int, set[str]] = {}
    for i, f in enumerate(fns):
        for callee in f.calls - set(by_name):
            for h in headers:
                shown = imposed(h, callee)
                if shown:
                    forced.setdefault(find(i), set()).add(shown)
    decisions: dict[int, Decision] = {}
    reasons: dict[int, tuple[str, tuple[Quantity, ...]]] = {}
    cross: dict[int, bool] = {}
    for comp, qs in comps.items():
        is_cross = any(q.cross for q in qs)
        is_cross = is_cross or any(f in ("32", "64") for f in forced.get(comp, set()))
        cross[comp] = is_cross
        decisions[comp], *rest = decide(qs, is_cross, forced.get(comp, set()))
        reasons[comp] = (rest[0], rest[1])
        if decisions[comp] == "convert64" and not forced.get(comp):
            costs = [c for i in kernels_of.get(comp, []) if (k := facts.get(fns[i].name)) is not None
                     and (c := lds_cost(unit, k, constants, qs, ctx.options.arch)) is not None]
            decisions[comp], reasons[comp] = lds_gate(qs, costs, reasons[comp])
    spans = []
    for i, f in enumerate(fns):
        start, end = f.view.span(f.node)
        spans.append((start, end, decisions[find(i)], find(i)))
    for name, i in owners.items():  # a warp-size constant follows the code that uses it
        for d in patterns.definitions(unit).get(name, []):
            if d.decl is None or patterns.enclosing(d.decl, "function_definition") is None:
                start, end = d.view.span(d.value)
                spans.append((start, end, decisions[find(i)], find(i)))
    kernels = []
    for comp, members in kernels_of.items():
        names = tuple(sorted({fns[j].name for j in range(len(fns)) if find(j) == comp}))
        for i in members:
            kernels.append(KernelWave(fns[i].name, unit.path, names, tuple(comps[comp]), cross[comp],
                                      decisions[comp], reasons[comp][0], reasons[comp][1]))
    for comp, qs in comps.items():
        if comp in kernels_of or not qs:
            continue
        names = tuple(sorted({fns[j].name for j in range(len(fns)) if find(j) == comp}))
        first = next((j for j in range(len(fns)) if find(j) == comp and per_fn[j]), comp)  # the first that has quantities
        kernels.append(KernelWave(fns[first].name, unit.path, names, tuple(qs), cross[comp], decisions[comp],
                                  reasons[comp][0], reasons[comp][1], helper=True))
    order = {f.name: i for i, f in enumerate(fns)}
    kernels.sort(key=lambda k: order[k.kernel])
    constant_decisions = {name: decisions[find(i)] for name, i in owners.items()}
    model = UnitWaves(kernels, spans, comps, decisions, cross, constant_decisions)
    unit.memo["wave.model"] = model
    return model


def decide(qs: list[Quantity], cross: bool, forced: set[str]) -> tuple[Decision, str, tuple[Quantity, ...]]:
    """One decision for a component's quantities; the reason; the quantities that block the others."""
    live = [q for q in qs if q.form != "neutral"]
    no_convert = tuple(q for q in live if not q.convert and q.form in ("32", "wave"))
    no_keep = tuple(q for q in live if not q.keep)
    if len(forced) > 1:
        return "ask", "helpers in included headers were ported with different strategies", ()
    if forced == {"32"}:
        if no_keep:
            return "ask", f"an included helper keeps 32-lane groups, but {no_keep[0].shown} cannot", no_keep
        return "keep32", "a helper it calls from an included header keeps 32-lane groups", ()
    if forced == {"64"}:
        if no_convert:
            return "ask", f"an included helper works on the whole wave, but {no_convert[0].shown} does not convert", no_convert
        return "convert64", "a helper it calls from an included header works on the whole 64-lane wave", ()
    if not cross:
        return "keep32", "no cross-lane operation depends on the wave: its 32-based math is a logical grouping, kept", ()
    if any(q.form == "group" for q in live):
        if no_keep:
            return "ask", f"it already keeps 32-lane groups, but {no_keep[0].shown} has no group form", no_keep
        return "keep32", "its shuffles already name 32-lane segments (width 32): the groups are kept", ()
    if not no_convert:
        return ("convert64", "every wave-dependent quantity has a whole-wave rewrite, made together "
                "(a 64-lane reduction or vote takes no more steps than two 32-lane ones)", ())
    if not no_keep:
        return "keep32", f"{no_convert[0].shown} does not convert to 64 lanes ({no_convert[0].note or 'no rule rewrites it'})", no_convert
    return "ask", (f"{no_convert[0].shown} does not convert and {no_keep[0].shown} has no 32-lane-group form"), no_convert + no_keep


@dataclass(frozen=True)
class LdsCost:
    """What convert64 does to one kernel's static LDS, and the waves per CU that LDS leaves room for."""

    kernel: str
    before: int  # bytes of static __shared__ arrays per block, as written (keep32 keeps them)
    after: int  # the same once every warp-size dimension is 64
    waves_before: int
    waves_after: int
    block_known: bool  # the launch's block size is in this file; else one wave per block is assumed
    lds_per_cu: int
    max_waves: int

    @property
    def shown(self) -> str:
        per_block = "" if self.block_known else " (block size not in this file: one wave per block assumed)"
        return (f"`{self.kernel}`: static LDS {kernel_facts.kib(self.before)} -> {kernel_facts.kib(self.after)} "
                f"per block; {self.waves_before} -> {self.waves_after} waves per CU by LDS "
                f"({self.lds_per_cu // 1024} KiB per CU, at most {self.max_waves} waves){per_block}")


_TOKEN = re.compile(r"[A-Za-z_]\w*")
_ARITHMETIC = re.compile(r"^[\d\s+\-*/%()]+$")


def _dim_after(unit: SourceFile, node: Node, before: int, wide: dict[str, int], lane_dims: set[int]) -> int | None:
    """A dimension once convert64 is made: a lane-indexed [32] becomes [64]; a warp-size constant 64."""
    if node.start_byte in lane_dims:
        return 64
    text = unit.text(node)
    names = set(_TOKEN.findall(text))
    if not names & set(wide):
        return before
    if names - set(wide):
        return None  # other names beside the constant: not evaluated here
    expr = _TOKEN.sub(lambda m: str(wide[m.group()]), text)
    if not _ARITHMETIC.match(expr):
        return None
    try:
        return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, {}))  # digits and operators only
    except (ArithmeticError, SyntaxError):
        return None


def lds_cost(unit: SourceFile, k: kernel_facts.Kernel, constants: dict[str, int], qs: list[Quantity],
             arch: str) -> LdsCost | None:
    """The kernel's static LDS under keep32 and convert64, and the waves per CU each leaves room for
    (porter.hardware: LDS per CU and per workgroup, waves per CU). None when no array changes or a
    size is not a constant."""
    own = [q for q in qs if q.path == unit.path]
    converting = {q.text.split(" = ", 1)[0] for q in own if q.kind == "constant" and q.convert}
    wide = {name: 64 for name, v in constants.items() if v == 32 and name in converting}
    lane_dims = {q.start for q in own if q.kind == "shared-array" and q.form == "32" and q.convert}
    before = after = 0
    for a in k.arrays:
        if a.extern:
            continue
        if a.bytes is None:
            return None
        size = a.elem_bytes or 0
        for d, node in zip(a.dims, a.dim_nodes):
            new = _dim_after(unit, patterns.unwrap(node), d or 0, wide, lane_dims)
            if new is None:
                return None
            size *= new
        before += a.bytes
        after += size
    if after == before:
        return None
    spec = hardware.get(arch).spec
    lds_cu, lds_wg = int(spec.lds_bytes_per_cu.value), int(spec.lds_bytes_per_workgroup.value)
    max_waves, wave = int(spec.max_waves_per_cu.value), int(spec.wave_size.value)
    shape = kernel_facts.block_shape(unit, k.name)
    per_block = max(1, -(-shape[0] * shape[1] * shape[2] // wave)) if shape else 1

    def waves(nbytes: int) -> int:
        if nbytes > lds_wg:
            return 0  # the launch fails: more LDS than a workgroup may have
        blocks = lds_cu // nbytes if nbytes else max_waves
        return min(max_waves, blocks * per_block) // per_block * per_block

    return LdsCost(k.name, before, after, waves(before), waves(after), shape is not None, lds_cu, max_waves)


def lds_gate(qs: list[Quantity], costs: list[LdsCost],
             chosen: tuple[str, tuple[Quantity, ...]]) -> tuple[Decision, tuple[str, tuple[Quantity, ...]]]:
    """convert64 only where it pays: the LDS it adds must not cost waves per CU (issue 12: "convert to
    64 when all of them convert together and the LDS/occupancy figures say it pays"). Otherwise
    keep32 when every quantity has a 32-lane-group form, else ask."""
    if not costs:
        return "convert64", chosen
    worse = [c for c in costs if c.waves_after < c.waves_before]
    if not worse:
        return "convert64", (f"{chosen[0]}; its LDS grows without costing waves: "
                             + "; ".join(c.shown for c in costs), chosen[1])
    live = [q for q in qs if q.form != "neutral"]
    no_keep = tuple(q for q in live if not q.keep)
    why = "converting to 64 lanes would cost occupancy: " + "; ".join(c.shown for c in worse)
    if not no_keep:
        return "keep32", (f"every quantity converts, but {why}: the 32-lane groups are kept", ())
    return "ask", (f"{why}, and {no_keep[0].shown} has no 32-lane-group form", no_keep)


def _headers(unit: SourceFile, ctx: RuleContext, seen: frozenset[str] = frozenset()) -> list[SourceFile]:
    out = []
    for h in ctx.included(unit):
        if h.path in seen or h.path == unit.path:
            continue
        out.append(h)
        out += _headers(h, ctx, seen | {unit.path, h.path})
    return out


def decision_at(unit: SourceFile, ctx: RuleContext, offset: int) -> Decision | None:
    """The decision governing `offset` of `unit`; None for code outside every function (file scope)."""
    return analyse(unit, ctx).decision_at(offset)


UNDECIDED = "; not rewritten: this kernel's wave strategy is undecided (see its WAVE011 finding)"


def gate(unit: SourceFile, ctx: RuleContext, hits: Iterable[Hit]) -> Iterator[Hit]:
    """A whole-wave rule's hits, as the decision of the code they are in allows.

    convert64 (or code outside every function): as they are. keep32: none; WAVE011 rewrites those
    kernels to 32-lane groups, and their 32-based math is then right. ask: reported, not fixed.
    """
    model = analyse(unit, ctx)
    for hit in hits:
        decision = model.decision_at(hit.start)
        if decision == "keep32":
            continue
        if decision == "ask" and hit.edits:
            yield replace(hit, edits=(), message=hit.message + UNDECIDED)
        else:
            yield hit
