"""WAVE008: a lane's bit built in 32 bits (`1u << lane`).

Why: ballots and lane masks on CDNA have 64 bits, one per lane of the wavefront, and lanes run
    from 0 to 63. `1u << lane`, `1 << lane` or `(1u << lane) - 1` (the lanes below this one, as a
    warp scan or a stream compaction counts them with __popc(ballot & mask)) shift a 32-bit value:
    for lanes 32-63 the shift is undefined behaviour, and the mask never names the upper half.

Before:
    unsigned below = (1u << lane) - 1;
    int rank = __popcll(votes & below);
After:
    unsigned long long below = (1ull << lane) - 1;
    int rank = __popcll(votes & below);

Fix safety: safe when the shift count is a lane number (a lane name, or a thread index
    `% warpSize`, `% 32`, `& 31`): the 64-bit bit is the same bit for lanes 0-31 and the right one
    for 32-63. When the mask is stored in a 32-bit local variable with one declarator, that
    variable is widened as well; stored anywhere else 32 bits wide (a parameter, a field, a
    second declarator), it is reported, not changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import triggers, wave_model
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

WIDER = {"uint32_t": "uint64_t", "int32_t": "int64_t"}
_CARRIERS = frozenset({"binary_expression", "parenthesized_expression", "unary_expression", "conditional_expression"})


@rule(id="WAVE008", lang="cuda", severity="error", fix="safe",
      trigger=lambda data, ctx: b"<<" in data and triggers.wave_words(data, ctx))
def lane_bit(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _lane_bit(unit, ctx))


def _lane_bit(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        src = view.src
        for expr in src.captures("(binary_expression) @e"):
            if src.text(expr.child_by_field_name("operator")) != "<<":
                continue
            one, count = patterns.unwrap(expr.child_by_field_name("left")), expr.child_by_field_name("right")
            lit = patterns.literal(src.text(one)) if one.type == "number_literal" else None
            if not lit or lit[0] != 1 or "ll" in lit[1] or not patterns.is_lane_index(src, count):
                continue
            said = (f"`{' '.join(src.text(expr).split())}` shifts a 32-bit 1 by a lane number: lanes 32-63 of a CDNA "
                    "wavefront shift it out (undefined behaviour) and the mask never names them; use 1ull")
            edits = [Edit(*view.span(one), "1ull")]
            holder = expr
            while holder.parent is not None and holder.parent.type in _CARRIERS:
                holder = holder.parent
            parent = holder.parent
            if parent is not None and parent.type == "init_declarator":
                decl = parent.parent
                type_node = decl.child_by_field_name("type")
                declared = patterns.type_text(src, type_node)
                if declared in patterns.NARROW_INT:
                    single = (decl.type == "declaration" and len(decl.children_by_field_name("declarator")) == 1
                              and patterns.enclosing(decl, "function_definition") is not None)
                    if not single:
                        yield Hit(*view.span(expr), f"{said}; it is stored in a 32-bit `{declared}` that is left for a person")
                        continue
                    edits.append(Edit(*view.span(type_node), WIDER.get(declared, "unsigned long long")))
            elif parent is not None and parent.type == "assignment_expression":
                yield Hit(*view.span(expr), f"{said}; it is assigned to `{src.text(parent.child_by_field_name('left'))}`, "
                          "whose width is left for a person")
                continue
            yield Hit(*view.span(expr), said, edits=tuple(edits))
