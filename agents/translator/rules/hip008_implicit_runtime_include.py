"""HIP008: a .cu file that relies on nvcc's implicit `#include "cuda_runtime.h"` gets the HIP runtime header.

Why: nvcc includes cuda_runtime.h into every .cu translation unit before the first line, so a
CUDA file may launch kernels, call cudaMalloc or read threadIdx without including anything.
hipcc does not promise that for a renamed file (and a plain clang++ -x hip build does not), so a
port that renames the calls but includes nothing fails on the first hipMalloc. The header goes
first in the file (after `#pragma once`), as hipify-clang writes it. A .cu file that includes a
header that becomes <hip/hip_runtime.h> (cuda_runtime.h, cuda.h), itself or through a project
header of the tree, has what it needs.

Before:
    __global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
    void run(float* x) { scale<<<1, 64>>>(x); cudaDeviceSynchronize(); }
After:
    #include <hip/hip_runtime.h>
    __global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
    void run(float* x) { scale<<<1, 64>>>(x); cudaDeviceSynchronize(); }

Fix safety: safe: hip_runtime.h is what every HIP translation unit includes; its include guard
makes a second copy (through a project header) harmless.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.tokens import classify, mentions_names
from porter.includes import include_paths
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile, word_search

RUNTIME = "hip/hip_runtime.h"
# What only the implicit cuda_runtime.h declares: execution-space and memory-space keywords,
# the built-in index variables, dim3, __syncthreads.
_BUILTIN_NAMES = ("__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__",
                  "__launch_bounds__", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads", "dim3")
_CUDA_BUILTINS = re.compile(rb"(?<![A-Za-z0-9_])(?:" + "|".join(_BUILTIN_NAMES).encode() + rb")(?![A-Za-z0-9_])")
_HAS_BUILTIN = word_search(_BUILTIN_NAMES, whole=True)  # `_CUDA_BUILTINS.search`, literal first
_PRAGMA_ONCE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n?", re.M)
_FIRST_CODE = re.compile(rb"^[ \t]*[^\s/]", re.M)


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    # a runtime token, a launch or a built-in: what the rule's `uses` and `_launches` look for
    return mentions_names(data, ctx) or b"<<<" in data or _HAS_BUILTIN(data)


@rule(id="HIP008", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def implicit_runtime_include(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if not unit.path.endswith(".cu"):
        return  # only a .cu file is a translation unit nvcc compiles as CUDA
    found = classify(unit, ctx)
    if any(inc.path == RUNTIME or (inc.mapping is not None and inc.mapping.hip == RUNTIME) for inc in found.includes):
        return
    if _through_project_headers(unit, ctx):
        return
    uses = [t for t in found.tokens if t.kind != "dnn" and (t.mapping is None or t.mapping.family in ("runtime", "driver"))]
    if not uses:
        uses_builtins = next(unit.identifiers(_CUDA_BUILTINS), None)
        if uses_builtins is None and not _launches(unit):
            return
    at = _insertion_point(unit)
    yield Hit(at, at, "uses the CUDA runtime through nvcc's implicit cuda_runtime.h: "
                      f"#include <{RUNTIME}> added", edits=(Edit(start=at, end=at, text=f"#include <{RUNTIME}>\n"),))


_RUNTIME_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](?:hip/hip_runtime\.h|cuda_runtime\.h|cuda\.h)[>"]', re.M)
_RUNTIME_HEADERS = frozenset({b"hip/hip_runtime.h", b"cuda_runtime.h", b"cuda.h"})


def _includes_runtime(header: SourceFile) -> bool:
    """Whether `_RUNTIME_INCLUDE` occurs in the header: from its include paths (includes.include_paths,
    found from each `#`), once a header (every file that includes it asks)."""
    found = header.memo.get(_RUNTIME_MEMO)
    if found is None:
        found = header.memo[_RUNTIME_MEMO] = not _RUNTIME_HEADERS.isdisjoint(include_paths(header.data))
    return found  # type: ignore[return-value]


_RUNTIME_MEMO = "hip008.includes_runtime"


def _through_project_headers(unit: SourceFile, ctx: RuleContext) -> bool:
    """Whether a project header the file includes (directly or further down) includes the runtime."""
    seen = {unit.path}
    todo = list(ctx.included(unit))
    while todo:
        header = todo.pop()
        if header.path in seen:
            continue
        seen.add(header.path)
        if _includes_runtime(header):
            return True
        todo.extend(ctx.included(header))
    return False


def _launches(unit: SourceFile) -> bool:
    start = unit.data.find(b"<<<")
    while start >= 0:
        if unit.is_code(start):
            return True
        start = unit.data.find(b"<<<", start + 3)
    return False


def _insertion_point(unit: SourceFile) -> int:
    """After `#pragma once` when the file has one, else at the start of its first line of code."""
    for m in _PRAGMA_ONCE.finditer(unit.data):
        if unit.is_code(m.start() + m.group().index(b"#")):
            return m.end()
    for m in _FIRST_CODE.finditer(unit.data):
        if unit.is_code(m.end() - 1):
            return m.start()
    return len(unit.data)
