"""HIP017: cooperative_groups::labeled_partition -> porter::labeled_partition.

Why: CUDA's `cg::labeled_partition(group, label)` (compute capability 7.0) splits a coalesced
group, or a tile of up to 32 threads, into coalesced groups of the threads with the same label.
HIP's cooperative groups have no labeled_partition (ROCm 6.3, ROCm/clr
amd_hip_cooperative_groups.h: binary_partition only), so a port that keeps the call does not
compile; cuda-samples warpAggregatedAtomicsCG groups a warp's threads by bucket with it before a
warp-aggregated atomicAdd and a cg::reduce. porter_compat.h defines porter::labeled_partition
(SHIM041, shims/compat/labeled_partition.h) with CUDA's signature and result, a
cooperative_groups::coalesced_group, from one ROCm binary_partition per bit of the label.

Before:
    cg::coalesced_group active = cg::coalesced_threads();
    auto bucketGroup = cg::labeled_partition(active, bucket);
After:
    cg::coalesced_group active = cg::coalesced_threads();
    auto bucketGroup = porter::labeled_partition(active, bucket);

Fix safety: safe. The result is a coalesced_group of the caller's label, as CUDA's; its groups
are cut from the target's wave (64 lanes on gfx950), so a group may hold up to 64 threads where
CUDA's hold up to 32, which code that reads size() and thread_rank() (as CUDA asks) handles.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

CALL = re.compile(rb"\b(?:(?:::)?cooperative_groups|cg)\s*::\s*labeled_partition\b(?=\s*\()")


@rule(id="HIP017", lang="cuda", severity="error", fix="safe",
      trigger=lambda data, ctx: b"labeled_partition" in data)
def labeled_partition(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in CALL.finditer(unit.data):
        if not unit.is_code(m.start()):
            continue
        yield Hit(m.start(), m.end(), f"{m.group(0).decode()} does not exist in HIP's cooperative groups: "
                  "porter_compat.h's porter::labeled_partition returns the same coalesced_group",
                  (Edit(start=m.start(), end=m.end(), text="porter::labeled_partition"),))
