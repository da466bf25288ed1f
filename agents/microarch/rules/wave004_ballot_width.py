"""WAVE004: 64-bit ballot result narrowed to 32 bits.

Why: on CDNA __ballot, __ballot_sync, __activemask and __match_*_sync return one bit per lane of a
    64-lane wavefront, as unsigned long long (HIP's amd_warp_functions.h). Kept in an `unsigned`,
    `int` or `uint32_t`, or counted with the 32-bit __popc / __ffs / __clz, the result silently
    loses lanes 32-63: a vote that looks right on 32 lanes is wrong for half the wave.

Before:
    unsigned votes = __ballot_sync(mask, x > 0);
    int n = __popc(votes & lanes_below);
After:
    unsigned long long votes = __ballot_sync(mask, x > 0);
    int n = __popcll(votes & lanes_below);

Fix safety: safe for a local variable declared with one declarator and initialised or assigned
    from a ballot (its type becomes unsigned long long, or uint64_t for uint32_t/int32_t), and for
    __popc, __ffs, __builtin_popcount, __builtin_ffs and __builtin_ctz of a ballot or of an
    expression over a ballot variable (their 64-bit forms give the same answer for the low 32 bits
    and count the upper lanes too). Left as errors for a person: __clz, __brev and __builtin_clz
    (`31 - __clz(b)` must become `63 - __clzll(b)`), casts, and parameters or globals. A function
    that returns a ballot as 32 bits is WAVE010's, which widens it together with its callers.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import patterns, wave_model
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

BIT32, SAME_ANSWER, WIDER = patterns.BIT32, patterns.SAME_ANSWER, patterns.WIDER
_DECLARED = """[(declaration type: (_) @type declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)])
               (parameter_declaration type: (_) @type declarator: (identifier) @name)]"""
DROPS = "drops lanes 32-63"


@rule(id="WAVE004", lang="cuda", severity="error", fix="safe")
def ballot_width(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _ballot_width(unit, ctx))


def _ballot_width(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        src = view.src
        holders: set[tuple[int, str]] = set()  # (function start, name) of variables that hold a ballot
        renamed: set[int] = set()  # bit operations already fixed through a direct ballot argument
        for callee, call in patterns.calls(view, patterns.BALLOTS):
            site = call
            while site.parent is not None and site.parent.type == "parenthesized_expression":
                site = site.parent
            narrowed, holder, type_node = _narrowing(src, site)
            if holder:
                holders.add((_scope(src, call).start_byte, holder))
            if not narrowed:
                continue
            message = f"{callee} returns 64 bits on CDNA, one per lane of the wavefront; {narrowed}"
            edits: tuple[Edit, ...] = ()
            if type_node is not None:
                wide = WIDER.get(patterns.type_text(src, type_node), "unsigned long long")
                edits = (Edit(*view.span(type_node), wide),)
            elif site.parent is not None and site.parent.type == "argument_list":
                bit_call = site.parent.parent
                name = src.text(bit_call.child_by_field_name("function"))
                if name in SAME_ANSWER:
                    renamed.add(bit_call.start_byte)
                    edits = (Edit(*view.span(bit_call.child_by_field_name("function")), BIT32[name]),)
                else:
                    message += _DIFFERENT.format(name=name)
            yield Hit(*view.span(call), message, edits=edits)
        for callee, call in patterns.calls(view, frozenset(BIT32)):
            arguments = patterns.args(call)
            if not arguments or call.start_byte in renamed:
                continue
            scope = _scope(src, call).start_byte
            held = [n for n in src.captures("(identifier) @i", arguments[0]) if (scope, src.text(n)) in holders]
            if not held:
                continue
            message = (f"`{src.text(held[0])}` holds a 64-lane ballot; {callee} reads only the low 32 bits of "
                       f"`{' '.join(src.text(arguments[0]).split())}` and {DROPS}: use {BIT32[callee]}")
            if callee in SAME_ANSWER:
                yield Hit(*view.span(call), message, edits=(Edit(*view.span(call.child_by_field_name("function")), BIT32[callee]),))
            else:
                yield Hit(*view.span(call), message + _DIFFERENT.format(name=callee))


_DIFFERENT = ("; {name} counts from bit 31, its 64-bit form from bit 63, so the expression around it "
              "changes too: left for a person")


def _narrowing(src: SourceFile, site) -> tuple[str, str, object]:
    """(how the ballot at `site` is narrowed, or ""; the variable it is stored in, or ""; the type node to widen, or None)."""
    parent = site.parent
    if parent is None:
        return "", "", None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == site:
        name = src.text(parent.child_by_field_name("declarator"))
        decl = parent.parent
        type_node = decl.child_by_field_name("type")
        declared = patterns.type_text(src, type_node)
        if declared not in patterns.NARROW_INT:
            return "", name, None
        return (f"storing it in `{declared} {name}` {DROPS}: use unsigned long long", name,
                type_node if _local_single(decl) else None)
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == site:
        name = src.text(parent.child_by_field_name("left"))
        decl = _declaration(src, parent, name)
        type_node = decl.child_by_field_name("type") if decl is not None else None
        declared = patterns.type_text(src, type_node)
        if declared not in patterns.NARROW_INT:
            return "", name, None
        return (f"assigning it to `{declared} {name}` {DROPS}: use unsigned long long", name,
                type_node if decl is not None and _local_single(decl) else None)
    if parent.type == "argument_list" and parent.parent.type == "call_expression":
        call = parent.parent
        callee = src.text(call.child_by_field_name("function"))
        if callee in BIT32:
            return f"{callee} reads only its low 32 bits and {DROPS}: use {BIT32[callee]}", "", None
        parent = call
    cast = patterns.cast_target(src, parent)
    if cast:
        return (f"casting it to `{cast[0]}` {DROPS}" if cast[0] in patterns.NARROW_INT else ""), "", None
    # A ballot returned through a 32-bit return type is WAVE010's: it widens the function with its callers.
    return "", "", None


def _local_single(decl) -> bool:
    """A declaration inside a function body, with one declarator: widening it changes nothing else's type."""
    return (decl.type == "declaration" and len(decl.children_by_field_name("declarator")) == 1
            and patterns.enclosing(decl, "function_definition") is not None)


def _scope(src: SourceFile, node):
    return patterns.enclosing(node, "function_definition") or src.tree.root_node


def _declaration(src: SourceFile, use, name: str):
    """The last declaration of `name` before `use`, in its function, else in the file; None if unseen."""
    for scope in (patterns.enclosing(use, "function_definition"), src.tree.root_node):
        if scope is None:
            continue
        seen = [m for m in src.matches(_DECLARED, scope)
                if src.text(m["name"][0]) == name and m["name"][0].start_byte < use.start_byte]
        if seen:
            node = seen[-1]["type"][0].parent
            return node
    return None
