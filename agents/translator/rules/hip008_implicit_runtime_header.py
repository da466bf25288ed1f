"""HIP008: the CUDA runtime header nvcc includes by itself.

Why: nvcc includes cuda_runtime.h in every `.cu` file before its first line (nvcc manual, "CUDA
source files": the front end pre-includes cuda_runtime.h), so CUDA code often uses `threadIdx`,
`__global__` or cudaMalloc with no include at all (Rodinia's hotspot.cu, srad). hip-clang has no
such pre-include for the HIP runtime API: clang's HIP wrapper header declares the device builtins
only, and hipcc adds no `-include`; a ported `.cu` file without `#include <hip/hip_runtime.h>` stops
at "use of undeclared identifier 'hipMalloc'". hipify-perl adds the include for the same reason.

Before:
    __global__ void scale(float *x) { x[threadIdx.x] *= 2.f; }
After:
    #include <hip/hip_runtime.h>
    __global__ void scale(float *x) { x[threadIdx.x] *= 2.f; }

Fix safety: safe: the header is include-guarded, so a file that reaches it through a project
header as well only includes it once. Placed after the file's leading comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.tokens import classify
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

# What a .cu file uses only because nvcc pre-included the runtime: the kernel language and the
# runtime API (its names start with cuda/hip once HIP001 renamed them).
_CUDA_LANGUAGE = re.compile(rb"\b(?:__global__|__device__|__shared__|__constant__|__host__|threadIdx|blockIdx"
                            rb"|blockDim|gridDim|__syncthreads|(?:cuda|hip)[A-Z]\w*)\b")
# Headers that bring the runtime: CUDA's (before HIP002 maps them) and HIP's.
_RUNTIME_HEADERS = frozenset({"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "hip/hip_runtime.h",
                              "hip/hip_runtime_api.h"})
_LEADING = re.compile(rb"(?:[ \t]*(?://[^\n]*)?\n|[ \t]*/\*.*?\*/[ \t]*\n)*", re.S)


@rule(id="HIP008", lang="cuda", severity="info", fix="safe")
def implicit_runtime_header(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if not unit.path.endswith(".cu"):
        return
    if any(inc.path in _RUNTIME_HEADERS for inc in classify(unit).includes):
        return
    first = next(unit.identifiers(_CUDA_LANGUAGE), None)
    if first is None:
        return
    at = _LEADING.match(unit.data).end()
    yield Hit(first[0], first[1], "the file relies on nvcc's implicit cuda_runtime.h: HIP needs "
              "#include <hip/hip_runtime.h>", (Edit(start=at, end=at, text="#include <hip/hip_runtime.h>\n"),))
