"""Compile-error classes and the agent each goes back to.

The verifier reads clang's diagnostics for a failed unit, names the first error's class, and
routes the unit to the agent that owns that class (DESIGN.md: compile error -> translator or
shim by error class). Classes are matched on clang's wording, which is stable across releases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.M)
_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'|unknown type name '(\w+)'|"
                         r"no member named '(\w+)' in the global namespace")
_CUDA_NAME = re.compile(r"^(cuda|cu[A-Z]|CU_|CUDA_|cublas|curand|cufft|cusparse|cusolver|cudnn|__nv_|nv)")


@dataclass(frozen=True)
class CompileError:
    file: str
    line: int
    column: int
    message: str
    failure_class: str
    name: str = ""  # the identifier concerned, for the undeclared classes


def first_error(stderr: str) -> CompileError | None:
    """The first error clang reported, classified; None when there is no `error:` line."""
    m = _ERROR.search(stderr)
    if not m:
        return None
    msg = m["msg"]
    name = ""
    if "mask must be a 64-bit integer" in msg or "The mask must be" in msg:
        cls = "sync-mask-width"
    elif "file not found" in msg:
        cls = "header-not-found"
    elif (u := _UNDECLARED.search(msg)) is not None:
        name = next(g for g in u.groups() if g)
        cls = "cuda-name-left" if _CUDA_NAME.match(name) else "missing-declaration"
    elif "inline asm" in msg or "invalid instruction" in msg or "invalid operand" in msg:
        cls = "inline-asm"
    else:
        cls = "other"
    return CompileError(m["file"], int(m["line"]), int(m["col"]), msg, cls, name)


# Headers of the ROCm libraries porter maps CUDA libraries to (HIP002, HIP004). Debian ships only
# hipRAND/rocRAND of them, porter's overlay adds hipBLAS, hipBLASLt, hipFFT and hipSPARSE; where another
# is absent the unit cannot be compiled here for a reason of the toolchain, not of the port. OpenMP's
# omp.h is libomp-22-dev's.
_ROCM_LIBRARY_DIRS = ("hipblas/", "hipblaslt/", "hipfft/", "hipsparse/", "hipsparselt/", "hipsolver/", "hipcub/",
                      "rocprim/", "rocblas/", "rocsparse/", "rocfft/", "rocsolver/", "thrust/", "rccl/", "miopen/",
                      "roctracer/", "rocwmma/", "hiprand/", "rocrand/")
_NOT_FOUND = re.compile(r"'([^']+)' file not found")


def toolchain_gap(error: CompileError | None) -> str:
    """Why a failed compile says nothing about the port: a header of a ROCm library (or OpenMP)
    that porter's toolchain here does not carry. Empty when the error is the port's."""
    if error is None or error.failure_class != "header-not-found":
        return ""
    m = _NOT_FOUND.search(error.message)
    header = m[1] if m else ""
    if header.startswith(_ROCM_LIBRARY_DIRS) or header in ("hipblas.h", "hipfft.h", "hipsparse.h", "hipcub.hpp"):
        return (f"not checked: <{header}> belongs to a ROCm library whose headers porter's gfx950 toolchain "
                "does not carry (Debian ships HIP 5.2, hipRAND and rocRAND; porter's overlay adds hipBLAS, "
                "hipBLASLt, hipFFT and hipSPARSE); compile it where ROCm 6.3+ is installed")
    if header == "omp.h":
        return "not checked: <omp.h> is missing from the toolchain (install Debian's libomp-22-dev, `make toolchains`)"
    return ""


# Owner of each class. "other" goes to the translator: it is the agent that rewrote the text.
ROUTES = {
    "cuda-name-left": "translator",
    "header-not-found": "translator",
    "other": "translator",
    "missing-declaration": "shim",
    "sync-mask-width": "microarch",
    "inline-asm": "microarch",
    "mismatch": "microarch",  # numbers differ from the original: the rewrite is suspect first
    "build-files": "translator",  # the port's own Makefile/CMake does not build: BLD rules are the translator's
    "slower": "microarch",  # slower than the direct hipify on the target
}


def route_of(failure_class: str) -> str:
    return ROUTES.get(failure_class, "translator")

