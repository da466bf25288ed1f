"""WAVE010: a 64-bit lane mask narrowed to 32 bits by a function's return type, a local, or a caller.

Why: on CDNA a ballot (`__ballot`, `__activemask`) and a lane mask built from `__lane_id()` have
    64 bits, one per lane of the wavefront. Returned through a function declared `unsigned`, kept
    in a 32-bit local, or counted with `__popc`, they lose lanes 32-63: counts come out halved and
    the upper half-wave is never selected. This is what inline-PTX helpers written for 32-lane
    warps look like once their asm is rewritten (`unsigned mask; mask = (1ull << __lane_id()) - 1;
    return mask;`): the rewrite is right, the declarations around it are not, and neither are
    the callers (`unsigned active = ballot(pred); ... __popc(active)`). Seen on an H200 under
    porter's wave64 emulation (docs/evidence): a stream compaction counted 1069 of 2130.

Before:
    __device__ unsigned lanemask_lt() {
      unsigned mask;
      mask = ((1ull << __lane_id()) - 1);
      return mask;
    }
    __device__ int rank(int pred) {
      unsigned below = __ballot(pred) & lanemask_lt();
      return __popc(below);
    }
After:
    __device__ unsigned long long lanemask_lt() {
      unsigned long long mask;
      mask = ((1ull << __lane_id()) - 1);
      return mask;
    }
    __device__ int rank(int pred) {
      unsigned long long below = __ballot(pred) & lanemask_lt();
      return __popcll(below);
    }

Fix safety: safe for what it rewrites: the return type of a mask function (one that returns a
    ballot, a `__lane_id()` shift mask, a call of another mask function, or a local holding one,
    or `&`, `|`, `^`, `~` of them) and its prototypes in the same file; locals declared with one
    declarator and set from a mask; and __popc, __ffs, __builtin_popcount, __builtin_ffs and
    __builtin_ctz of a mask, which become their 64-bit forms (the same answer for bits 0-31, and
    lanes 32-63 counted). The type becomes unsigned long long, or uint64_t for uint32_t/int32_t.
    Bits 0-31 of every value stay what they were. Mask functions are found in the file and in the
    project headers it includes (`#include "..."`), which porter rewrites first, so a helper in
    `ops.cuh` and its callers in each `.cu` that includes it are widened together. Left as
    errors for a person: a declaration of several variables, a mask function that a project
    header also declares (both must change at once), and __clz / __brev of a mask (`31 -
    __clz(m)` must become `63 - __clzll(m)`). A ballot stored in a local directly is WAVE004's.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.agents.microarch import triggers, wave_model
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

# HIP's own lane-mask functions (amd_warp_functions.h): 64-bit on wave64.
LANE_MASK_CALLS = frozenset({"__lanemask_lt", "__lanemask_gt", "__lanemask_eq", "__lanemask_le", "__lanemask_ge"})
_FUNCTIONS = "(function_definition declarator: (function_declarator declarator: (identifier) @name)) @fn"
_PROTOTYPES = "(declaration declarator: (function_declarator declarator: (identifier) @name)) @decl"
_SETS = """[(assignment_expression left: (identifier) @name right: (_) @value)
            (init_declarator declarator: (identifier) @name value: (_) @value)]"""
_RETURNS = "(return_statement (_) @value)"
_DECLS = "(declaration) @decl"
_CALLS = "(call_expression function: (identifier) @fn) @call"
_MASK_WORDS = any_of(patterns.BALLOTS | LANE_MASK_CALLS | {"__lane_id"})
_LANE_ID = "(call_expression function: (identifier) @fn (#eq? @fn \"__lane_id\"))"
DROPS = "lanes 32-63 are lost"

Origins = frozenset[str]  # where a mask comes from: "ballot", "lane" (a __lane_id() shift), "call"
NONE: Origins = frozenset()


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    """A mask comes from a ballot, a lane-mask call or __lane_id here, or from a mask function
    of an included project header (`_imported`)."""
    return _MASK_WORDS(data, ctx) or triggers.includes_project_header(data, ctx)


@rule(id="WAVE010", lang="cuda", severity="error", fix="safe", trigger=_trigger)
def mask_narrowing(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _mask_narrowing(unit, ctx))


def _mask_narrowing(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    functions = dict(_imported(unit, ctx))
    functions.update(mask_functions(unit, functions))
    prototypes = _prototypes(unit)
    for m in unit.matches(_FUNCTIONS):
        fn, name = m["fn"][0], unit.text(m["name"][0])
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        masks = _mask_locals(unit, body, functions)
        if name in functions and functions[name] == unit.path:
            yield from _return_type(unit, ctx, fn, name, prototypes.get(name, []))
        yield from _narrow_locals(unit, body, masks)
        yield from _bit_operations(unit, body, masks, functions)


def mask_functions(unit: SourceFile, known: dict[str, str]) -> dict[str, str]:
    """Functions defined in `unit` that return a 64-bit wave mask: name -> unit.path.

    `known` are mask functions of the headers `unit` includes; a function returning a call of
    one (or of a mask function of the file) is one too.
    """
    found: dict[str, str] = {}
    definitions = [(unit.text(m["name"][0]), m["fn"][0].child_by_field_name("body")) for m in unit.matches(_FUNCTIONS)]
    changed = True
    while changed:
        changed = False
        scope = {**known, **found}
        for name, body in definitions:
            if body is None or name in found:
                continue
            masks = _mask_locals(unit, body, scope)
            if any(_origins(unit, m["value"][0], masks, scope) for m in unit.matches(_RETURNS, body)):
                found[name] = unit.path
                changed = True
    return found


def _imported(unit: SourceFile, ctx: RuleContext, seen: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
    """Mask functions of the project headers `unit` includes, and of the headers they include."""
    for header in ctx.included(unit):
        if header.path in seen:
            continue
        if "wave010.exports" not in header.memo:  # a header is read by every unit that includes it
            inner = dict(_imported(header, ctx, seen | {unit.path, header.path}))
            header.memo["wave010.exports"] = {**inner, **mask_functions(header, inner)}
        yield from header.memo["wave010.exports"].items()


def _origins(unit: SourceFile, node: Node | None, masks: dict[str, Origins], functions: dict[str, str]) -> Origins:
    """Where the 64-bit wave mask `node` evaluates to comes from; empty when it is not one."""
    if node is None:
        return NONE
    node = patterns.unwrap(node)
    kind = node.type
    if kind == "identifier":
        return masks.get(unit.text(node), NONE)
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        name = unit.text(fn) if fn is not None and fn.type == "identifier" else ""
        if name in patterns.BALLOTS:
            return frozenset({"ballot"})
        if name in LANE_MASK_CALLS:
            return frozenset({"lane"})
        return frozenset({"call"}) if name in functions else NONE
    if kind == "binary_expression":
        op = node.child_by_field_name("operator").type
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&", "|", "^"):
            return _origins(unit, left, masks, functions) | _origins(unit, right, masks, functions)
        if op in ("+", "-"):  # (1ull << lane) - 1
            return _origins(unit, left, masks, functions)
        if op == "<<":
            if _wide_constant(unit, left) and unit.captures(_LANE_ID, right):
                return frozenset({"lane"})
            return _origins(unit, left, masks, functions)  # (~0ull << lane) << 1
        return NONE
    if kind == "unary_expression" and node.child_by_field_name("operator").type == "~":
        return _origins(unit, node.child_by_field_name("argument"), masks, functions)
    if kind == "conditional_expression":
        return (_origins(unit, node.child_by_field_name("consequence"), masks, functions)
                | _origins(unit, node.child_by_field_name("alternative"), masks, functions))
    return NONE


def _wide_constant(unit: SourceFile, node: Node) -> bool:
    """A 64-bit integer literal (1ull, 2ULL) or its complement (~0ull)."""
    node = patterns.unwrap(node)
    if node.type == "unary_expression" and node.child_by_field_name("operator").type == "~":
        node = patterns.unwrap(node.child_by_field_name("argument"))
    return node.type == "number_literal" and unit.text(node).lower().rstrip("u").endswith("ll")


def _mask_locals(unit: SourceFile, body: Node, functions: dict[str, str]) -> dict[str, Origins]:
    """Variables of the function set from a mask, with where their masks come from."""
    sets = [(unit.text(m["name"][0]), m["value"][0]) for m in unit.matches(_SETS, body)]
    masks: dict[str, Origins] = {}
    changed = True
    while changed:
        changed = False
        for name, value in sets:
            origins = masks.get(name, NONE) | _origins(unit, value, masks, functions)
            if origins != masks.get(name, NONE):
                masks[name] = origins
                changed = True
    return masks


def _direct_ballots(unit: SourceFile, body: Node) -> set[str]:
    """Variables set straight from a ballot call: WAVE004 widens them and their bit operations."""
    held = set()
    for m in unit.matches(_SETS, body):
        value = patterns.unwrap(m["value"][0])
        fn = value.child_by_field_name("function") if value.type == "call_expression" else None
        if fn is not None and unit.text(fn) in patterns.BALLOTS:
            held.add(unit.text(m["name"][0]))
    return held


def _widened(unit: SourceFile, type_node: Node) -> str:
    return patterns.WIDER.get(patterns.type_text(unit, type_node), "unsigned long long")


def _prototypes(unit: SourceFile) -> dict[str, list[Node]]:
    found: dict[str, list[Node]] = {}
    for m in unit.matches(_PROTOTYPES):
        found.setdefault(unit.text(m["name"][0]), []).append(m["decl"][0])
    return found


def _return_type(unit: SourceFile, ctx: RuleContext, fn: Node, name: str, prototypes: list[Node]) -> Iterator[Hit]:
    type_node = fn.child_by_field_name("type")
    returns = patterns.type_text(unit, type_node)
    if returns not in patterns.NARROW_INT:
        return
    message = (f"`{name}` returns a 64-bit lane mask (one bit per lane of a CDNA wavefront) through the 32-bit "
               f"return type `{returns}`: {DROPS}")
    elsewhere = [h.path for h in ctx.included(unit) if name in _prototypes(h)]
    if elsewhere:
        yield Hit(type_node.start_byte, type_node.end_byte,
                  f"{message}; {elsewhere[0]} declares it too: widen both to unsigned long long, and its callers")
        return
    wide = _widened(unit, type_node)
    edits = [Edit(type_node.start_byte, type_node.end_byte, wide)]
    for decl in prototypes:
        declared = decl.child_by_field_name("type")
        if patterns.type_text(unit, declared) == returns:
            edits.append(Edit(declared.start_byte, declared.end_byte, wide))
    yield Hit(type_node.start_byte, type_node.end_byte,
              f"{message}; widened to {wide}, as are the locals its callers keep it in", edits=tuple(edits))


def _narrow_locals(unit: SourceFile, body: Node, masks: dict[str, Origins]) -> Iterator[Hit]:
    ballots_only = _direct_ballots(unit, body)
    for decl in unit.captures(_DECLS, body):
        type_node = decl.child_by_field_name("type")
        declared = patterns.type_text(unit, type_node)
        if type_node is None or declared not in patterns.NARROW_INT:
            continue
        declarators = decl.children_by_field_name("declarator")
        for child in declarators:
            target = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            if target is None or target.type != "identifier":
                continue
            name = unit.text(target)
            if name not in masks or (masks[name] == {"ballot"} and name in ballots_only):
                continue
            message = (f"`{name}` holds a 64-bit lane mask (one bit per lane of a CDNA wavefront) in `{declared}`: "
                       f"{DROPS}")
            if len(declarators) == 1:
                wide = _widened(unit, type_node)
                yield Hit(type_node.start_byte, type_node.end_byte, f"{message}; declared {wide}",
                          edits=(Edit(type_node.start_byte, type_node.end_byte, wide),))
            else:
                yield Hit(type_node.start_byte, type_node.end_byte,
                          f"{message}; declare it on its own as unsigned long long (the others share the type)")


def _bit_operations(unit: SourceFile, body: Node, masks: dict[str, Origins],
                    functions: dict[str, str]) -> Iterator[Hit]:
    ballots_only = _direct_ballots(unit, body)
    for m in unit.matches(_CALLS, body):
        callee = unit.text(m["fn"][0])
        if callee not in patterns.BIT32:
            continue
        arguments = patterns.args(m["call"][0])
        if not arguments or not _origins(unit, arguments[0], masks, functions):
            continue
        names = {unit.text(n) for n in unit.captures("(identifier) @i", arguments[0])}
        if names & (set(patterns.BALLOTS) | ballots_only):
            continue  # a ballot read directly: WAVE004's
        fn = m["fn"][0]
        message = (f"`{' '.join(unit.text(arguments[0]).split())}` is a 64-bit lane mask; {callee} reads only its "
                   f"low 32 bits: {DROPS}")
        if callee in patterns.SAME_ANSWER:
            wide = patterns.BIT32[callee]
            yield Hit(fn.start_byte, fn.end_byte, f"{message}; {wide} counts all 64",
                      edits=(Edit(fn.start_byte, fn.end_byte, wide),))
        else:
            yield Hit(fn.start_byte, fn.end_byte,
                      f"{message}; {callee} counts from bit 31 and {patterns.BIT32[callee]} from bit 63, so the "
                      "expression around it changes too: left for a person")
