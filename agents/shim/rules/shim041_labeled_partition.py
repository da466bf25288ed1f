"""SHIM041: porter::labeled_partition (written by HIP017) needs porter_compat.h.

Why: HIP's cooperative groups have no labeled_partition (ROCm 6.3: binary_partition only), so
HIP017 rewrites CUDA's `cg::labeled_partition(group, label)` as `porter::labeled_partition`,
which porter_compat.h defines (shims/compat/labeled_partition.h: one binary_partition per bit of
the label, returning the caller's coalesced_group).

Before:
    auto bucketGroup = porter::labeled_partition(active, bucket);
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    auto bucketGroup = porter::labeled_partition(active, bucket);

Fix safety: safe; the header only adds the definitions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

USE = re.compile(rb"\bporter::labeled_partition\b")
HEADER = "compat/labeled_partition.h"


@rule(id="SHIM041", lang="cuda", severity="info",
      trigger=any_of(["porter::labeled_partition"]))
def labeled_partition(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in USE.finditer(unit.data):
        if unit.is_code(m.start()):
            yield Hit(m.start(), m.end(), "porter::labeled_partition is porter's labeled_partition for HIP: "
                      "porter_compat.h defines it")
