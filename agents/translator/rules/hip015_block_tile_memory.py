"""HIP015: cooperative_groups::block_tile_memory and tiles wider than a wavefront -> porter's multi-wave tiles.

Why: CUDA 11.1 lets `tiled_partition<N>` cut tiles of up to 1024 threads; on devices before
compute capability 8.0 a tile wider than the 32-thread warp needs block-wide scratch, which the
kernel declares as `__shared__ cg::block_tile_memory<BlockSize> scratch;` and hands to
`cg::this_thread_block(scratch)` (CUDA C++ Programming Guide, "Cooperative Groups: Thread Block
Tile"). HIP's cooperative groups have neither (ROCm 6.3, ROCm/clr release/rocm-rel-6.3.0.1
amd_hip_cooperative_groups.h: no block_tile_memory, `this_thread_block()` takes no argument, no
cg::reduce): their tiles are at most one wavefront (`is_valid_tile_size`: a power of two no
larger than the wavefront, checked at compile time and at run time) and live in registers. A
port that keeps them stops at "no template named 'block_tile_memory'" (cuda-samples reduction,
kernel 9: `tiled_partition<BlockSize / 2>`, 32 to 512 threads, and cg::reduce over it).
`this_thread_block(scratch)` becomes `this_thread_block()`. In a kernel whose tiles all fit a
wavefront (literal sizes) the scratch goes. In a kernel with a tile that is or may be wider (a
literal above the wavefront, or a template parameter or expression, which some instantiation
may make wider), the scratch becomes `porter::tile_scratch<MaxBlock>` and the tile
`porter::tiled_partition<N>(block, scratch)`, a `porter::multi_wave_tile<N>` (SHIM040's
header, shims/compat/multi_wave_tile.h: thread_rank, size, num_threads, meta_group_rank,
meta_group_size, and sync() as a per-tile LDS barrier; any N, so instantiations of a wavefront
or less work too, with HIP's shuffles there); in that file every cg::reduce becomes porter::reduce (per-wave shuffles and
partials through the scratch on a multi-wave tile, WAVE009's shuffle tree on any other group,
so a helper templated on the group serves both) and cg::plus & co. porter's.

Before:
    #include <cooperative_groups/reduce.h>
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<BlockSize / 2>(cta);
    T sum = cg::reduce(tile, v, cg::plus<T>());
After:
    // <cooperative_groups/reduce.h>: HIP has no such header; porter::reduce is in porter_compat.h (HIP015)
    __shared__ porter::tile_scratch<BlockSize> scratch;
    auto cta = cg::this_thread_block();
    auto tile = porter::tiled_partition<BlockSize / 2>(cta, scratch);
    T sum = porter::reduce(tile, v, porter::plus<T>());

Fix safety: safe. The scratch is read by this_thread_block in CUDA and by porter's tiles here;
porter's tile has the members CUDA gives a multi-warp tile (no shuffles or votes, as in CUDA),
porter::tiled_partition is a collective of the block as CUDA's is, and porter::reduce returns
op over the tile's values to every thread, as cg::reduce does. A wider tile whose parent is not
the thread block (a tile of a tile) is reported as an error for a person. cg::reduce over such a
tile from another file (a helper in a header) is not rewritten: WAVE009 expands it there with
shuffles, which a multi-wave tile does not have, so that port stops at compile time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import hardware
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_CG = rb"(?:(?:::)?cooperative_groups|cg)"
SCRATCH = re.compile(rb"__shared__\s+(" + _CG + rb"::block_tile_memory)\s*"
                     rb"<([^;<>]*(?:<[^;<>]*>[^;<>]*)*)>\s*(\w+)\s*;")
# `[cg::thread_block_tile<N[, P]> | auto] t = cg::tiled_partition<N>(` (the declaration is optional)
_TILES = re.compile(rb"(?:(" + _CG + rb"::thread_block_tile\s*<[^;<>]*>)\s+\w+\s*=\s*)?"
                    rb"(" + _CG + rb"::tiled_partition)\s*<\s*([^<>()]+?)\s*>\s*\(")
_BLOCK_DECL = rb"(?:\b(\w+)\s*=\s*" + _CG + rb"::this_thread_block\s*\(|\bthread_block\s+(\w+)\b)"
_REDUCE = re.compile(rb"\b" + _CG + rb"::reduce\s*\(")
_FUNCTORS = re.compile(rb"\b" + _CG + rb"::(plus|less|greater|bit_and|bit_or|bit_xor)\b")
_REDUCE_HEADER = re.compile(rb'#[ \t]*include[ \t]*[<"]cooperative_groups/reduce\.h[>"][^\n]*')


@rule(id="HIP015", lang="cuda", severity="error", fix="safe",
      trigger=lambda data, ctx: b"block_tile_memory" in data)
def block_tile_memory(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    wave = hardware.get(ctx.options.arch).wave_size
    multi_wave = False
    for decl in SCRATCH.finditer(unit.data):
        if not unit.is_code(decl.start()):
            continue
        name = decl.group(3).decode()
        # the kernel that declared it: up to the next top-level closing brace
        end = unit.data.find(b"\n}", decl.end())
        body_end = len(unit.data) if end < 0 else end
        blocks = {b.decode() for m in re.finditer(_BLOCK_DECL, unit.data[decl.end():body_end])
                  for b in m.groups() if b}
        wide, kept = [], []
        for m in _TILES.finditer(unit.data, decl.end(), body_end):
            size = m.group(3).decode().strip()
            if not unit.is_code(m.start()) or (size.isdigit() and int(size) <= wave):
                continue
            close = _closing(unit.data, m.end())
            parent = " ".join(unit.data[m.end():close].decode().split()) if close > 0 else ""
            if parent in blocks or re.fullmatch(r"(?:(?:::)?cooperative_groups|cg)::this_thread_block\s*\(\s*\w*\s*\)",
                                                parent):
                wide.append((m, size, close))
            else:
                kept.append((m, size))
        use = re.compile(rb"\b(" + _CG + rb"::this_thread_block)\s*\(\s*" + re.escape(name.encode()) + rb"\s*\)")
        for m in use.finditer(unit.data, decl.end(), body_end):
            if unit.is_code(m.start()):
                yield Hit(m.start(), m.end(), "HIP's this_thread_block() takes no scratch argument",
                          edits=(Edit(m.start(), m.end(), f"{m.group(1).decode()}()"),))
        if wide:
            multi_wave = True
            args = [a.strip() for a in decl.group(2).decode().split(",")]
            size_arg = args[-1] if args and args[-1] else ""  # CUDA 11's <CommunicationSize, MaxBlockSize>
            yield Hit(decl.start(), decl.end(), "cooperative_groups::block_tile_memory does not exist in HIP: "
                      f"the kernel's tiles of up to {size_arg or 'the block'} threads may be wider than one "
                      f"{wave}-lane wavefront, so porter's tiles take this scratch (SHIM040)",
                      edits=(Edit(decl.start(1), decl.end(2) + 1, f"porter::tile_scratch<{size_arg}>"),))
            for m, size, close in wide:
                edits = [Edit(m.start(2), m.end(2), "porter::tiled_partition"), Edit(close, close, f", {name}")]
                if m.group(1):
                    edits.insert(0, Edit(m.start(1), m.end(1), f"porter::multi_wave_tile<{size}>"))
                yield Hit(m.start(2), close + 1, f"tiled_partition<{size}>: HIP's thread_block_tile is at most one "
                          f"{wave}-lane wavefront and a tile of {size} threads may be wider: porter's multi-wave "
                          "tile (an LDS barrier a tile, a reduction through per-wave partials in the scratch)",
                          edits=tuple(edits))
        else:
            what = " ".join(decl.group(0).decode().replace("__shared__", "", 1).rstrip(";").split())
            yield Hit(decl.start(), decl.end(), "cooperative_groups::block_tile_memory does not exist in HIP: its "
                      f"tiles are at most one {wave}-lane wavefront and need no scratch",
                      edits=(Edit(decl.start(), decl.end(), f"// {what}: HIP's tiles (at most one {wave}-lane "
                                  "wavefront) need no scratch (HIP015)"),))
        for m, size in kept:
            yield Hit(m.start(2), m.end(), f"tiled_partition<{size}>: HIP's thread_block_tile is at most one "
                      f"{wave}-lane wavefront, and a tile of {size} threads may be wider; its parent is not the "
                      "thread block, which porter's multi-wave tile needs (left for a person)",
                      severity=Severity.error)
    if multi_wave:
        yield from _reduce_calls(unit)


def _reduce_calls(unit: SourceFile) -> Iterator[Hit]:
    """cg::reduce and its functors in a file with a multi-wave tile -> porter's (any group: SHIM040's header)."""
    found = False
    for m in _REDUCE.finditer(unit.data):
        if unit.is_code(m.start()):
            found = True
            yield Hit(m.start(), m.end(), "cg::reduce does not exist in HIP: porter::reduce takes a multi-wave tile "
                      "(per-wave partials through the scratch) and any other group (a shuffle tree, as WAVE009)",
                      edits=(Edit(m.start(), m.end(), "porter::reduce("),))
    for m in _FUNCTORS.finditer(unit.data):
        if unit.is_code(m.start()):
            yield Hit(m.start(), m.end(), f"cg::{m.group(1).decode()} does not exist in HIP: porter's has CUDA's "
                      "meaning", edits=(Edit(m.start(), m.end(), f"porter::{m.group(1).decode()}"),))
    for m in _REDUCE_HEADER.finditer(unit.data):
        if found and unit.is_code(m.start()):
            yield Hit(m.start(), m.end(), "<cooperative_groups/reduce.h> has no HIP counterpart",
                      edits=(Edit(m.start(), m.end(), "// <cooperative_groups/reduce.h>: HIP has no such header; "
                                  "porter::reduce is in porter_compat.h (HIP015)"),))


def _closing(data: bytes, at: int) -> int:
    """The offset of the `)` that closes the parenthesis opened just before `at`, or -1."""
    depth = 1
    for i in range(at, min(len(data), at + 4096)):
        c = data[i:i + 1]
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return i
        elif c in (b";", b"{", b"}"):
            return -1
    return -1
