"""HIP007: PyTorch-extension names and headers that ROCm PyTorch spells with hip.

Why: ROCm builds of PyTorch keep at::cuda / c10::cuda C++ names (HIP masquerades as CUDA), yet
for extensions hipify renames the c10/cuda and ATen/cuda headers (c10/cuda/CUDAGuard.h ->
c10/hip/HIPGuard.h, ATen/cuda/CUDAContext.h -> ATen/hip/HIPContext.h), CUDA_VERSION ->
TORCH_HIP_VERSION and USE_CUDA -> USE_ROCM. These come from torch.utils.hipify's own PyTorch
tables and apply only to a file that includes torch/, ATen/ or c10/ headers: in plain CUDA code
CUDA_VERSION is the toolkit's macro, and renaming it would be wrong.

Before:
    #include <ATen/cuda/CUDAContext.h>
    #if CUDA_VERSION >= 11000
After:
    #include <ATen/hip/HIPContext.h>
    #if TORCH_HIP_VERSION >= 11000

Fix safety: safe for extension files, where the ROCm wheel installs the hip headers; nothing is
reported for other files.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.tokens import classify, renames
from porter.includes import EXTENSION_HEADERS
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

_trigger = any_of(EXTENSION_HEADERS)  # an extension includes one of them


@rule(id="HIP007", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def pytorch_extension(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    found = classify(unit, ctx)
    if not found.extension:
        return
    for inc in found.includes:
        if inc.mapping is not None and inc.mapping.family == "pytorch" and inc.mapping.renames:
            new = f"<{inc.mapping.hip}>" if inc.angled else f'"{inc.mapping.hip}"'
            yield Hit(inc.start, inc.end, f"{inc.path} -> {inc.mapping.hip} (ROCm PyTorch header)",
                      edits=(Edit(start=inc.start, end=inc.end, text=new),))
    chosen = (t for t in found.tokens if t.kind == "rename" and t.mapping.family == "pytorch")
    yield from renames(chosen, lambda t: f"{t.name} -> {t.mapping.hip} (ROCm PyTorch)")
