"""HIP004: CUDA math and communication libraries mapped to their ROCm counterparts.

Why: cuBLAS, cuBLASLt, cuRAND, cuFFT, cuSPARSE, cuSOLVER and CUB are not on ROCm; hipBLAS,
hipBLASLt, hipRAND, hipFFT, hipSPARSE, hipSOLVER and hipCUB mirror their APIs name for name
(cublasSgemm -> hipblasSgemm, cub:: -> hipcub::), and the build must link the ROCm package
instead. A run may port straight to the ROCm libraries, as HIPIFY's `-roc` does: `--blas rocblas`
(cublasSgemm -> rocblas_sgemm), `--sparse rocsparse`, `--solver rocsolver`, `--rand rocrand`, and
`--dnn miopen` (cudnnCreate -> miopenCreate; otherwise cuDNN is HIP006's). NCCL and Thrust keep their names: RCCL exports the nccl* API and rocThrust the thrust::
API, so those are reported once per file (info) with the package to link, and not rewritten.

Before:
    cublasHandle_t h; cublasCreate(&h);
    cub::BlockReduce<float, 256> reduce;
After:
    hipblasHandle_t h; hipblasCreate(&h);
    hipcub::BlockReduce<float, 256> reduce;

Fix safety: safe: a rename to the ROCm wrapper of the same call. The wrappers' status enums and
handles are distinct types, so a missed name is a compile error, never a silent mismatch.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.tables import LIBRARIES, library
from porter.agents.translator.tokens import classify, mentions_names, renames
from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

FAMILIES = frozenset(LIBRARIES)  # dnn names are renamed only under --dnn miopen


@rule(id="HIP004", lang="cuda", severity="info", fix="safe", trigger=mentions_names)
def libraries(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    reported: set[str] = set()
    to_rename = []
    for token in classify(unit, ctx).tokens:
        mapping = token.mapping
        if mapping is None or mapping.family not in FAMILIES:
            continue
        if token.kind == "rename":
            to_rename.append(token)
        elif token.kind == "same" and mapping.family not in reported:
            reported.add(mapping.family)
            lib = library(mapping)
            yield Hit(token.start, token.end,
                      f"{token.name}: {lib.cuda} keeps its names on ROCm ({lib.rocm} provides them); {_link(lib)}")
    yield from renames(to_rename, _message)


def _link(lib) -> str:
    return f"link {lib.package}" + (f" ({lib.link})" if lib.link.startswith("-l") else "")


def _message(token) -> str:
    lib = library(token.mapping)
    return f"{token.name} -> {token.mapping.hip}: {lib.cuda} -> {lib.rocm}; {_link(lib)}"
