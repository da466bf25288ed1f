"""WAVE009: cooperative_groups reduce, which HIP does not have; 32-thread tiles on a 64-lane wave.

Why: HIP's cooperative groups (hip/hip_cooperative_groups.h) have thread_block_tile with shfl,
    shfl_down, shfl_up and shfl_xor, but no cg::reduce and no <cooperative_groups/reduce.h>: a port
    that keeps them does not compile. `tiled_partition<32>` itself is fine: a tile is a logical
    group, HIP supports tiles of up to one wavefront, and a 64-lane CDNA wave simply holds two
    32-thread tiles, so the code around it (tile.size(), thread_rank(), one slot per tile) stays
    right; it is reported as information only.

Before:
    #include <cooperative_groups/reduce.h>
    float s = cg::reduce(tile, v, cg::plus<float>());
After:
    // <cooperative_groups/reduce.h>: HIP has no such header; cg::reduce is expanded in place (WAVE009)
    float s = [&] { auto porter_v = (v); for (unsigned porter_o = (tile).size() / 2; porter_o > 0; porter_o /= 2) { auto porter_t = (tile).shfl_down(porter_v, porter_o); porter_v = porter_v + porter_t; } return (tile).shfl(porter_v, 0); }();

Fix safety: safe for cg::plus, cg::less, cg::greater, cg::bit_and, cg::bit_or and cg::bit_xor: a
    shuffle tree over the tile's own size, broadcast from its first thread, which is what cg::reduce
    returns to every thread of the group. Any other operator (a user functor, a lambda) is reported
    for a person. The include is replaced by a comment only in a file where every cg::reduce is
    expanded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.microarch import patterns
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

REDUCE = re.compile(r"^(cg|cooperative_groups)::reduce$")
TILED = re.compile(r"^(cg|cooperative_groups)::tiled_partition\s*<\s*32\s*>$")
OPERATORS = {"plus": "porter_v + porter_t", "less": "porter_t < porter_v ? porter_t : porter_v",
             "greater": "porter_t > porter_v ? porter_t : porter_v", "bit_and": "porter_v & porter_t",
             "bit_or": "porter_v | porter_t", "bit_xor": "porter_v ^ porter_t"}
OPERATOR = re.compile(r"^(?:cg|cooperative_groups)::(\w+)\s*(?:<[^<>]*>)?\s*\(\s*\)$")
REDUCE_HEADER = re.compile(rb'#[ \t]*include[ \t]*[<"]cooperative_groups/reduce\.h[>"][^\n]*')
_CALLS = "(call_expression function: (_) @fn) @call"


@rule(id="WAVE009", lang="cuda", severity="error", fix="safe")
def cg_reduce(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    expanded, kept = 0, 0
    for m in unit.matches(_CALLS):
        fn, call = m["fn"][0], m["call"][0]
        name = "".join(unit.text(fn).split())
        if TILED.match(name):
            yield Hit(call.start_byte, call.end_byte, "a 32-thread tile is a logical group on CDNA: a 64-lane "
                      "wavefront holds two of them and tile.size() stays 32, so this is right as it is",
                      severity=Severity.info)
            continue
        if not REDUCE.match(name):
            continue
        arguments = patterns.args(call)
        op = OPERATOR.match(" ".join(unit.text(arguments[2]).split())) if len(arguments) == 3 else None
        combine = OPERATORS.get(op.group(1)) if op else None
        said = f"{unit.text(fn)} does not exist in HIP's cooperative groups"
        if combine is None:
            kept += 1
            yield Hit(call.start_byte, call.end_byte, f"{said}; its operator is not one porter expands, so it is left for a person")
            continue
        expanded += 1
        group, value = unit.text(arguments[0]), unit.text(arguments[1])
        text = (f"[&] {{ auto porter_v = ({value}); for (unsigned porter_o = ({group}).size() / 2; porter_o > 0; "
                f"porter_o /= 2) {{ auto porter_t = ({group}).shfl_down(porter_v, porter_o); porter_v = {combine}; }} "
                f"return ({group}).shfl(porter_v, 0); }}()")
        yield Hit(call.start_byte, call.end_byte, f"{said}: expanded to a shuffle tree over the tile, broadcast "
                  "from its first thread", edits=(Edit(call.start_byte, call.end_byte, text),))
    for inc in REDUCE_HEADER.finditer(unit.data):
        if not unit.is_code(inc.start()):
            continue
        if expanded and not kept:
            yield Hit(inc.start(), inc.end(), "<cooperative_groups/reduce.h> has no HIP counterpart",
                      edits=(Edit(inc.start(), inc.end(), "// <cooperative_groups/reduce.h>: HIP has no such header; "
                                  "cg::reduce is expanded in place (WAVE009)"),))
        else:
            yield Hit(inc.start(), inc.end(), "<cooperative_groups/reduce.h> has no HIP counterpart; the cg::reduce "
                      "calls that need it are left for a person")
