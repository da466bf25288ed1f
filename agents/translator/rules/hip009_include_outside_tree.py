"""HIP009: a source that includes a file outside the project tree.

Why: porter ports the tree it is given. `#include "../../common/timer.h"` that climbs above the
project root reaches a file porter never saw: if it holds CUDA code or includes CUDA headers, the
port still compiles it as CUDA, and the port builds only where the original's neighbours sit next
to it. The include is reported with where it points.

Before:
    #include "../../../shared/check.cuh"
After:
    #include "../../../shared/check.cuh"

Fix safety: report only (the rule edits nothing).
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import outside_tree
from porter.agents.translator.tokens import classify
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Severity
from porter.syntax import SourceFile


@rule(id="HIP009", lang="cuda", severity="warning", trigger=any_of([".."]))  # "../"
def include_outside_tree(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for inc in classify(unit).includes:
        where = None if inc.angled else outside_tree(unit.path, inc.path)
        if where:
            yield Hit(inc.start, inc.end, f"{where} is outside the ported tree: it is not ported; port that "
                      "folder too", severity=Severity.warning)
