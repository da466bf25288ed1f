"""HIP001: CUDA runtime and driver API names renamed to HIP.

Why: hip-clang does not declare the CUDA runtime or driver API; `cudaMalloc`, `cudaStream_t` or
`CUdeviceptr` do not compile for gfx950. HIP mirrors them one to one (hipMalloc, hipStream_t,
hipDeviceptr_t), so the rename is mechanical. Whole tokens only, in code and `#define` bodies;
comments and string literals stay as written, and a project's own `my_cudaMalloc` is untouched.
Names come from torch.utils.hipify's tables plus porter's (`agents/translator/tables.py`).

Before:
    cudaStream_t s; cudaStreamCreate(&s);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);
After:
    hipStream_t s; hipStreamCreate(&s);
    hipMemcpyAsync(d, h, n, hipMemcpyHostToDevice, s);

Fix safety: safe: each HIP name has the CUDA name's signature and semantics; the few that differ
in behaviour (e.g. hipHostMalloc's default flags) are reported by later rules, not renamed away.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.tokens import classify, mentions_names, renames
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

FAMILIES = frozenset({"runtime", "driver"})


@rule(id="HIP001", lang="cuda", severity="info", fix="safe", trigger=mentions_names)
def runtime_api(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    chosen = (t for t in classify(unit, ctx).tokens if t.kind == "rename" and t.mapping.family in FAMILIES)
    yield from renames(chosen, lambda t: f"{t.name} -> {t.mapping.hip} (HIP {t.mapping.family} API)")
