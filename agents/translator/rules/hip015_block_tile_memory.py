"""HIP015: cooperative_groups::block_tile_memory and this_thread_block(scratch) -> this_thread_block().

Why: CUDA 11.1 lets `tiled_partition<N>` cut tiles of up to 1024 threads; on devices before
compute capability 8.0 a tile wider than the 32-thread warp needs block-wide scratch, which the
kernel declares as `__shared__ cg::block_tile_memory<BlockSize> scratch;` and hands to
`cg::this_thread_block(scratch)` (CUDA C++ Programming Guide, "Cooperative Groups: Thread Block
Tile"). HIP's cooperative groups have neither (ROCm 6.3, ROCm/clr release/rocm-rel-6.3.0.1
amd_hip_cooperative_groups.h: no block_tile_memory, `this_thread_block()` takes no argument):
their tiles are at most one wavefront (`is_valid_tile_size`: a power of two no larger than the
wavefront) and live in registers, so a tile of up to 64 threads on CDNA needs no scratch. A
port that keeps them stops at "no template named 'block_tile_memory'" (cuda-samples reduction).
The scratch declaration goes and `this_thread_block(scratch)` becomes `this_thread_block()`; the
LDS the scratch took is freed.

Before:
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<32>(cta);
After:
    // cg::block_tile_memory<BlockSize> scratch: HIP's tiles (at most one 64-lane wavefront) need no scratch (HIP015)
    auto cta = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(cta);

Fix safety: safe for the scratch itself: nothing but this_thread_block reads it. A tile wider
than a wavefront has no HIP counterpart at all: each `tiled_partition<N>` in a kernel that
declared the scratch, with N not a literal of at most 64, is reported as an error for a person
(HIP's thread_block_tile static_asserts on it); the rewrite of the scratch still applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import hardware
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

SCRATCH = re.compile(rb"__shared__\s+(?:cg|cooperative_groups|(?:::)?cooperative_groups)::block_tile_memory\s*"
                     rb"<[^;<>]*(?:<[^;<>]*>[^;<>]*)*>\s*(\w+)\s*;")
_TILES = re.compile(rb"\b(?:cg|cooperative_groups)::tiled_partition\s*<\s*([^<>()]+?)\s*>\s*\(")


@rule(id="HIP015", lang="cuda", severity="error", fix="safe",
      trigger=lambda data, ctx: b"block_tile_memory" in data)
def block_tile_memory(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if b"block_tile_memory" not in unit.data:
        return
    wave = hardware.get(ctx.options.arch).wave_size
    for decl in SCRATCH.finditer(unit.data):
        if not unit.is_code(decl.start()):
            continue
        name = decl.group(1).decode()
        what = " ".join(decl.group(0).decode().replace("__shared__", "", 1).rstrip(";").split())
        yield Hit(decl.start(), decl.end(), "cooperative_groups::block_tile_memory does not exist in HIP: its tiles "
                  f"are at most one {wave}-lane wavefront and need no scratch",
                  edits=(Edit(decl.start(), decl.end(), f"// {what}: HIP's tiles (at most one {wave}-lane wavefront) "
                              "need no scratch (HIP015)"),))
        # the kernel that declared it: up to the next top-level closing brace
        end = unit.data.find(b"\n}", decl.end())
        body_end = len(unit.data) if end < 0 else end
        use = re.compile(rb"\b((?:cg|cooperative_groups)::this_thread_block)\s*\(\s*" + re.escape(name.encode())
                         + rb"\s*\)")
        for m in use.finditer(unit.data, decl.end(), body_end):
            if unit.is_code(m.start()):
                yield Hit(m.start(), m.end(), "HIP's this_thread_block() takes no scratch argument",
                          edits=(Edit(m.start(), m.end(), f"{m.group(1).decode()}()"),))
        for m in _TILES.finditer(unit.data, decl.end(), body_end):
            size = m.group(1).decode().strip()
            if not unit.is_code(m.start()) or (size.isdigit() and int(size) <= wave):
                continue
            yield Hit(m.start(), m.end(), f"tiled_partition<{size}>: HIP's thread_block_tile is at most one "
                      f"{wave}-lane wavefront, and a tile of {size} threads may be wider; HIP has no multi-wavefront "
                      "tile (left for a person: an LDS reduction over the block, or tiles of one wavefront)",
                      severity=Severity.error)
