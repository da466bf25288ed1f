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

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_sites import DROPS, _narrowing
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

BIT32, SAME_ANSWER, WIDER = patterns.BIT32, patterns.SAME_ANSWER, patterns.WIDER


@rule(id="WAVE004", lang="cuda", severity="error", fix="safe",
      trigger=any_of(patterns.BALLOTS))
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


def _scope(src: SourceFile, node):
    return patterns.enclosing(node, "function_definition") or src.tree.root_node


