"""WAVE004: 64-bit ballot result narrowed to 32 bits.

Why: on CDNA __ballot, __ballot_sync, __activemask and __match_*_sync return one bit per lane of a
    64-lane wavefront, as unsigned long long (HIP's amd_warp_functions.h). Kept in an `unsigned`,
    `int` or `uint32_t`, or counted with the 32-bit __popc / __ffs / __clz, the result silently
    loses lanes 32-63: a vote that looks right on 32 lanes is wrong for half the wave.

Before:
    unsigned votes = __ballot_sync(mask, x > 0);
    int n = __popc(votes);
After:
    unsigned long long votes = __ballot_sync(mask, x > 0);
    int n = __popcll(votes);

Fix safety: none yet: widening a variable changes every expression it feeds (shifts, comparisons,
    struct fields), which a person or the model checks.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

# 32-bit bit operations and their 64-bit forms (CUDA Math API integer intrinsics; GCC builtins).
BIT32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll",
         "__builtin_popcount": "__builtin_popcountll", "__builtin_ffs": "__builtin_ffsll",
         "__builtin_clz": "__builtin_clzll", "__builtin_ctz": "__builtin_ctzll"}
_DECLARED = """[(declaration type: (_) @type declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)])
               (parameter_declaration type: (_) @type declarator: (identifier) @name)]"""
DROPS = "drops lanes 32-63"


@rule(id="WAVE004", lang="cuda", severity="error")
def ballot_width(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        src = view.src
        holders: set[tuple[int, str]] = set()  # (function start, name) of variables that hold a ballot
        for callee, call in patterns.calls(view, patterns.BALLOTS):
            site = call
            while site.parent is not None and site.parent.type == "parenthesized_expression":
                site = site.parent
            narrowed, holder = _narrowing(src, site)
            if narrowed:
                yield Hit(*view.span(call), f"{callee} returns 64 bits on CDNA, one per lane of the wavefront; "
                          f"{narrowed}")
            elif holder:
                holders.add((_scope(src, call).start_byte, holder))
        for callee, call in patterns.calls(view, frozenset(BIT32)):
            arguments = patterns.args(call)
            first = patterns.unwrap(arguments[0]) if arguments else None
            if first is not None and (_scope(src, call).start_byte, src.text(first)) in holders:
                yield Hit(*view.span(call), f"`{src.text(first)}` holds a 64-lane ballot; {callee} reads only its "
                          f"low 32 bits and {DROPS}: use {BIT32[callee]}")


def _narrowing(src: SourceFile, site) -> tuple[str, str]:
    """(how the ballot at `site` is narrowed, or ""; the variable it is stored in, or "")."""
    parent = site.parent
    if parent is None:
        return "", ""
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == site:
        name = src.text(parent.child_by_field_name("declarator"))
        declared = patterns.type_text(src, parent.parent.child_by_field_name("type"))
        narrow = declared in patterns.NARROW_INT
        return (f"storing it in `{declared} {name}` {DROPS}: use unsigned long long" if narrow else ""), name
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == site:
        name = src.text(parent.child_by_field_name("left"))
        declared = _declared_type(src, parent, name)
        narrow = declared in patterns.NARROW_INT
        return (f"assigning it to `{declared} {name}` {DROPS}: use unsigned long long" if narrow else ""), name
    if parent.type == "argument_list" and parent.parent.type == "call_expression":
        call = parent.parent
        callee = src.text(call.child_by_field_name("function"))
        if callee in BIT32:
            return f"{callee} reads only its low 32 bits and {DROPS}: use {BIT32[callee]}", ""
        parent = call
    cast = patterns.cast_target(src, parent)
    if cast:
        return (f"casting it to `{cast[0]}` {DROPS}" if cast[0] in patterns.NARROW_INT else ""), ""
    if parent.type == "return_statement":
        function = patterns.enclosing(parent, "function_definition")
        returns = patterns.type_text(src, function.child_by_field_name("type")) if function else ""
        narrow = returns in patterns.NARROW_INT
        return (f"returning it as `{returns}` {DROPS}: return unsigned long long" if narrow else ""), ""
    return "", ""


def _scope(src: SourceFile, node):
    return patterns.enclosing(node, "function_definition") or src.tree.root_node


def _declared_type(src: SourceFile, use, name: str) -> str:
    """The type of the last declaration of `name` before `use`, in its function, else in the file."""
    for scope in (patterns.enclosing(use, "function_definition"), src.tree.root_node):
        if scope is None:
            continue
        seen = [m for m in src.matches(_DECLARED, scope)
                if src.text(m["name"][0]) == name and m["name"][0].start_byte < use.start_byte]
        if seen:
            return patterns.type_text(src, seen[-1]["type"][0])
    return ""
