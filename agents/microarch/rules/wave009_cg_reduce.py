"""WAVE009: cooperative_groups reduce and scans, which HIP does not have; 32-thread tiles on a 64-lane wave.

Why: HIP's cooperative groups (hip/hip_cooperative_groups.h) have thread_block_tile with shfl,
    shfl_down, shfl_up and shfl_xor, but no cg::reduce, cg::inclusive_scan or cg::exclusive_scan, and no
    <cooperative_groups/reduce.h> or <cooperative_groups/scan.h>: a port that keeps them does not
    compile. `tiled_partition<32>` itself is fine: a tile is a logical
    group, HIP supports tiles of up to one wavefront, and a 64-lane CDNA wave simply holds two
    32-thread tiles, so the code around it (tile.size(), thread_rank(), one slot per tile) stays
    right; it is reported as information only.

Before:
    #include <cooperative_groups/reduce.h>
    float s = cg::reduce(tile, v, cg::plus<float>());
After:
    // <cooperative_groups/reduce.h>: HIP has no such header; cg::reduce is expanded in place (WAVE009)
    float s = [&] { auto porter_v = (v); const unsigned porter_n = (tile).size(); unsigned porter_o = 1; while (porter_o < porter_n) porter_o *= 2; for (porter_o /= 2; porter_o > 0; porter_o /= 2) { auto porter_t = (tile).shfl_down(porter_v, porter_o); if ((tile).thread_rank() + porter_o < porter_n) porter_v = porter_v + porter_t; } return (tile).shfl(porter_v, 0); }();

Fix safety: safe. cg::reduce becomes a shuffle tree over the group's size rounded up to a power
    of two, each rank combining only ranks that exist (a coalesced or labeled group may hold any
    number of threads), broadcast from its first thread, which is what cg::reduce returns to every
    thread of the group; the scans become a
    Hillis-Steele scan with shfl_up over the tile (exclusive_scan shifted by one rank; rank 0 gets
    a value-initialised result, the identity of plus, bit_or and bit_xor). cg::plus, less, greater,
    bit_and, bit_or, bit_xor, written `op<T>()` or `op<T>{}`, become the expression; any other
    callable (a lambda, a user functor) is called as it is, lower ranks first. The includes are
    replaced by a comment only in a file where every call is expanded. `tile.meta_group_size()` and
    `meta_group_rank()` of a tile cut from the thread block (missing from HIP before ROCm 6.1)
    become the tile count and the tile index computed from blockDim and threadIdx.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

REDUCE = re.compile(r"^(cg|cooperative_groups)::(reduce|inclusive_scan|exclusive_scan)$")
TILED = re.compile(r"^(cg|cooperative_groups)::tiled_partition\s*<\s*32\s*>$")
OPERATORS = {"plus": "porter_v + porter_t", "less": "porter_t < porter_v ? porter_t : porter_v",
             "greater": "porter_t > porter_v ? porter_t : porter_v", "bit_and": "porter_v & porter_t",
             "bit_or": "porter_v | porter_t", "bit_xor": "porter_v ^ porter_t"}
# cg::plus<float>(), cg::plus<float>{} and cg::plus<float> {} are the same functor object.
OPERATOR = re.compile(r"^(?:cg|cooperative_groups)::(\w+)\s*(?:<[^<>]*>)?\s*(?:\(\s*\)|\{\s*\})$")
REDUCE_HEADER = re.compile(rb'#[ \t]*include[ \t]*[<"]cooperative_groups/(reduce|scan)\.h[>"][^\n]*')
_CALLS = "(call_expression function: (_) @fn) @call"


@rule(id="WAVE009", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["tiled_partition", "reduce", "scan"]))
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
        if not (found := REDUCE.match(name)):
            continue
        kind = found.group(2)
        arguments = patterns.args(call)
        said = f"{unit.text(fn)} does not exist in HIP's cooperative groups"
        if len(arguments) not in ((3,) if kind == "reduce" else (2, 3)):
            kept += 1
            yield Hit(call.start_byte, call.end_byte, f"{said}; this call form is left for a person")
            continue
        expanded += 1
        group, value = unit.text(arguments[0]), unit.text(arguments[1])
        op = OPERATOR.match(" ".join(unit.text(arguments[2]).split())) if len(arguments) == 3 else None
        named = OPERATORS["plus"] if len(arguments) == 2 else OPERATORS.get(op.group(1)) if op else None
        # Any other callable (a lambda, a user functor) is called as it is: op(lower ranks, higher ranks).
        setup = "" if named else f"auto porter_op = ({unit.text(arguments[2])}); "
        combine = named or "porter_op(porter_v, porter_t)"
        lower_first = named or "porter_op(porter_t, porter_v)"
        if kind == "reduce":
            # The group's size rounded up to a power of two, each rank combining only ranks that
            # exist: a coalesced or labeled group may hold any number of threads (5 of them: a tree
            # from size / 2 = 2 never reaches rank 4 from rank 0, and a rank past the end reads its
            # own value back, which plus would count twice).
            text = (f"[&] {{ {setup}auto porter_v = ({value}); const unsigned porter_n = ({group}).size(); "
                    f"unsigned porter_o = 1; while (porter_o < porter_n) porter_o *= 2; "
                    f"for (porter_o /= 2; porter_o > 0; porter_o /= 2) {{ "
                    f"auto porter_t = ({group}).shfl_down(porter_v, porter_o); "
                    f"if (({group}).thread_rank() + porter_o < porter_n) porter_v = {combine}; }} "
                    f"return ({group}).shfl(porter_v, 0); }}()")
            how = "a shuffle tree over the group, broadcast from its first thread"
        else:
            text = (f"[&] {{ {setup}auto porter_v = ({value}); for (unsigned porter_o = 1; porter_o < ({group}).size(); "
                    f"porter_o *= 2) {{ auto porter_t = ({group}).shfl_up(porter_v, porter_o); "
                    f"if (({group}).thread_rank() >= porter_o) porter_v = {lower_first}; }} ")
            if kind == "inclusive_scan":
                text += "return porter_v; }()"
                how = "a Hillis-Steele scan over the tile (shfl_up by 1, 2, 4, ...)"
            else:
                text += (f"auto porter_e = ({group}).shfl_up(porter_v, 1); "
                         f"return ({group}).thread_rank() == 0 ? decltype(porter_v){{}} : porter_e; }}()")
                how = ("a Hillis-Steele scan over the tile shifted by one rank; rank 0 gets a value-initialised "
                       "result (0 for plus, bit_or, bit_xor)")
        yield Hit(call.start_byte, call.end_byte, f"{said}: expanded to {how}",
                  edits=(Edit(call.start_byte, call.end_byte, text),))
    yield from _meta_group(unit)
    for inc in REDUCE_HEADER.finditer(unit.data):
        if not unit.is_code(inc.start()):
            continue
        header = inc.group(1).decode()
        if expanded and not kept:
            yield Hit(inc.start(), inc.end(), f"<cooperative_groups/{header}.h> has no HIP counterpart",
                      edits=(Edit(inc.start(), inc.end(), f"// <cooperative_groups/{header}.h>: HIP has no such header; "
                                  f"{'cg::reduce is' if header == 'reduce' else 'its scans are'} expanded in place (WAVE009)"),))
        else:
            yield Hit(inc.start(), inc.end(), f"<cooperative_groups/{header}.h> has no HIP counterpart; the calls "
                      "that need it are left for a person")


_MEMBER_CALLS = "(call_expression function: (field_expression argument: (identifier) @obj field: (field_identifier) @member)) @call"
# `thread_block_tile<32> t = cg::tiled_partition<32>(block);` or `auto t = ...`: read as text, since
# without the types tree-sitter parses the declaration as a comparison.
TILE_DECL = re.compile(rb"(?:thread_block_tile\s*<\s*\d+\s*>|auto)\s+(\w+)\s*=\s*(?:cg|cooperative_groups)::"
                       rb"tiled_partition\s*<\s*(\d+)\s*>\s*\(\s*((?:cg|cooperative_groups)::this_thread_block\s*\(\s*\)|\w+)\s*\)")
BLOCK_DECL = re.compile(rb"(?:thread_block|auto)\s+(\w+)\s*=\s*(?:cg|cooperative_groups)::this_thread_block\s*\(\s*\)")
LINEAR = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"


def _meta_group(unit: SourceFile) -> Iterator[Hit]:
    """tile.meta_group_size() / meta_group_rank() of a tile cut from the thread block, which HIP
    before ROCm 6.1 does not have: the number of tiles in the block and this tile's index."""
    blocks = {m.group(1).decode() for m in BLOCK_DECL.finditer(unit.data) if unit.is_code(m.start())}
    tiles: dict[str, int] = {}
    for m in TILE_DECL.finditer(unit.data):
        parent = m.group(3).decode()
        if unit.is_code(m.start()) and ("this_thread_block" in parent or parent in blocks):
            tiles[m.group(1).decode()] = int(m.group(2))
    for m in unit.matches(_MEMBER_CALLS):
        obj, member, call = unit.text(m["obj"][0]), unit.text(m["member"][0]), m["call"][0]
        if obj not in tiles or member not in ("meta_group_size", "meta_group_rank") or patterns.args(call):
            continue
        n = tiles[obj]
        text = (f"((blockDim.x * blockDim.y * blockDim.z + {n - 1}) / {n})" if member == "meta_group_size"
                else f"({LINEAR} / {n})")
        what = "the number of tiles in the block" if member == "meta_group_size" else "the tile's index in the block"
        yield Hit(call.start_byte, call.end_byte, f"thread_block_tile::{member}() exists in HIP only from ROCm 6.1; "
                  f"for a {n}-thread tile of the thread block it is {what}",
                  edits=(Edit(call.start_byte, call.end_byte, text),))
