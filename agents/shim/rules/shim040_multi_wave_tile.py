"""SHIM040: porter's tiles wider than a wavefront (porter::tile_scratch, tiled_partition, reduce).

Why: HIP015 rewrites CUDA's multi-warp cooperative-groups tiles (`tiled_partition<N>` with N
possibly wider than a wavefront, with `block_tile_memory` scratch) and `cg::reduce` in the same
file as porter's `porter::tile_scratch`, `porter::tiled_partition`, `porter::reduce` and
`porter::plus` & co., which HIP does not declare: HIP's tiles stop at one wavefront (ROCm 6.3
is_valid_tile_size) and it has no cg::reduce. porter_compat.h defines them
(shims/compat/multi_wave_tile.h: a per-tile LDS barrier and a reduction through per-wave
partials in the scratch).

Before:
    __shared__ porter::tile_scratch<BlockSize> scratch;
    auto tile = porter::tiled_partition<GroupSize>(cta, scratch);
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    __shared__ porter::tile_scratch<BlockSize> scratch;
    auto tile = porter::tiled_partition<GroupSize>(cta, scratch);

Fix safety: safe; the header only adds the definitions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

NAMES = ("tile_scratch", "tiled_partition", "multi_wave_tile", "reduce", "plus", "less", "greater", "bit_and",
         "bit_or", "bit_xor")
USE = re.compile(rb"\bporter::(" + "|".join(NAMES).encode() + rb")\b")
HEADER = "compat/multi_wave_tile.h"


@rule(id="SHIM040", lang="cuda", severity="info",
      trigger=any_of(["porter::"]))
def multi_wave_tile(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in USE.finditer(unit.data):
        if unit.is_code(m.start()):
            yield Hit(m.start(), m.end(), f"{m.group(0).decode()} is porter's multi-wavefront tile support: "
                      "porter_compat.h defines it")
