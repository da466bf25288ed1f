"""HIP006: cuDNN use, which has no drop-in replacement on ROCm.

Why: MIOpen is AMD's DNN library, but it is not a renamed cuDNN: descriptors, algorithm search
(find/immediate mode instead of cudnnGet*_v7 heuristics), workspace rules and the cuDNN 8/9
graph/frontend API differ, and several cuDNN ops have no MIOpen counterpart. A mechanical
cudnnX -> miopenX rename compiles rarely and computes wrongly when it does; every use is reported
for a person (or the model) to port, e.g. to MIOpen, hipBLASLt, or a PyTorch op. With
`--dnn miopen` the run asks for HIPIFY's direct cuDNN -> MIOpen renames (HIP004 applies them);
what those leave is reported here.

Before:
    #include <cudnn.h>
    cudnnHandle_t h; cudnnCreate(&h);
After:
    #include <cudnn.h>
    cudnnHandle_t h; cudnnCreate(&h);  // reported: port to MIOpen by hand

Fix safety: none.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.tokens import classify, mentions_names
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

_WHY = "MIOpen is not a drop-in replacement for cuDNN; port this by hand"


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    # a token, or a cudnn* include (the names' answer first: five rules ask it of these bytes)
    return mentions_names(data, ctx) or b"cudnn" in data


@rule(id="HIP006", lang="cuda", severity="error", fix="none", trigger=_trigger)
def cudnn(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    found = classify(unit, ctx)
    for inc in found.includes:
        if inc.path.startswith("cudnn") and not (inc.mapping and inc.mapping.family == "dnn" and inc.mapping.hip):
            yield Hit(inc.start, inc.end, f"{inc.path}: cuDNN header; {_WHY}")
    for token in found.tokens:
        if token.kind == "dnn":
            yield Hit(token.start, token.end, f"{token.name}: cuDNN API; {_WHY}")
