"""BLD003: CUDAToolkit package and CUDA:: imported targets.

Why: `find_package(CUDAToolkit)` and the `CUDA::` targets it defines exist only with an NVIDIA
toolkit. ROCm ships one CMake package per library under /opt/rocm/lib/cmake (ROCm 6.3, "Using
CMake"): `hip` exports `hip::host` (the runtime, libamdhip64) and `hip::device`; hipBLAS exports
`roc::hipblas`, hipBLASLt `roc::hipblaslt`, hipSPARSE `roc::hipsparse`, hipSOLVER `roc::hipsolver`,
hipRAND `hip::hiprand`, hipFFT `hip::hipfft`. The find_package call is replaced by `hip` plus one
package for each library this file links.

Before:
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(solver PRIVATE CUDA::cudart CUDA::cublas)
After:
    find_package(hip REQUIRED)
    find_package(hipblas REQUIRED)
    target_link_libraries(solver PRIVATE hip::host roc::hipblas)

Fix safety: safe for the targets in the table. The old FindCUDA module (`find_package(CUDA)`,
`${CUDA_LIBRARIES}`) and CUDA libraries without a hip* twin (nvrtc, NVTX, cuDNN) are reported
for a person to port.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import argument_value, arguments, cmake_tree, commands, line_indent
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

# CUDA:: target -> (ROCm imported target, the package that exports it)
TARGETS: dict[str, tuple[str, str]] = {
    "cudart": ("hip::host", "hip"),
    "cudart_static": ("hip::host", "hip"),
    "cuda_driver": ("hip::host", "hip"),  # the driver API (hipModule*, hipCtx*) lives in libamdhip64 too
    "cublas": ("roc::hipblas", "hipblas"),
    "cublas_static": ("roc::hipblas", "hipblas"),
    "cublasLt": ("roc::hipblaslt", "hipblaslt"),
    "cublasLt_static": ("roc::hipblaslt", "hipblaslt"),
    "curand": ("hip::hiprand", "hiprand"),
    "curand_static": ("hip::hiprand", "hiprand"),
    "cufft": ("hip::hipfft", "hipfft"),
    "cufft_static": ("hip::hipfft", "hipfft"),
    "cusparse": ("roc::hipsparse", "hipsparse"),
    "cusparse_static": ("roc::hipsparse", "hipsparse"),
    "cusolver": ("roc::hipsolver", "hipsolver"),
    "cusolver_static": ("roc::hipsolver", "hipsolver"),
}
_TARGET = re.compile(rb"\bCUDA::(\w+)")
# Result variables of FindCUDA and FindCUDAToolkit (CMake docs): unset once the package is gone.
_CUDA_VARS = re.compile(rb"\$\{(CUDA_(?:LIBRARIES|CUBLAS_LIBRARIES|cublas_LIBRARY|curand_LIBRARY|cufft_LIBRARY|"
                        rb"cusparse_LIBRARY|INCLUDE_DIRS|TOOLKIT_ROOT_DIR)|CUDAToolkit_\w+)\}")


@rule(id="BLD003", lang="cmake", severity="info", fix="safe")
def cuda_toolkit(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    cmds = list(commands(cmake_tree(data)))
    packages: list[str] = ["hip"]
    found: set[str] = set()
    toolkit = []
    for name, cmd in cmds:
        args = arguments(cmd)
        first = data[args[0].start_byte:args[0].end_byte].decode() if args else ""
        if name == "find_package":
            if first == "CUDAToolkit":
                toolkit.append(cmd)
            elif first == "CUDA":
                yield Hit(cmd.start_byte, cmd.end_byte, "find_package(CUDA) is the FindCUDA module (removed by "
                          "policy CMP0146, CMake 3.27): port its cuda_add_* calls to the HIP language and "
                          "find_package(hip)", severity=Severity.warning)
            else:
                found.add(first)
        for arg in args:
            start, end = argument_value(arg)
            # in a message a CUDA:: name is prose, not a link
            for m in _TARGET.finditer(data, start, end) if name != "message" else ():
                lib = m.group(1).decode()
                if lib in TARGETS:
                    target, package = TARGETS[lib]
                    if package not in packages:
                        packages.append(package)
                    yield Hit(m.start(), m.end(), f"CUDA::{lib} -> {target}: exported by ROCm's {package} "
                              "CMake package", (Edit(start=m.start(), end=m.end(), text=target),))
                else:
                    yield Hit(m.start(), m.end(), f"CUDA::{lib} has no ROCm target in porter's table: link the "
                              "ROCm library that replaces it by hand", severity=Severity.warning)
            for m in _CUDA_VARS.finditer(data, start, end):
                yield Hit(m.start(), m.end(), f"${{{m.group(1).decode()}}} is set by FindCUDA/FindCUDAToolkit, "
                          "which the port no longer runs: use the ROCm package targets (hip::host, roc::hipblas, "
                          "...) or ROCM_PATH", severity=Severity.warning)
    for cmd in toolkit:
        args = [data[a.start_byte:a.end_byte].decode() for a in arguments(cmd)]
        mode = " ".join(a for a in args if a in ("REQUIRED", "QUIET"))
        calls = [f"find_package({p}{' ' + mode if mode else ''})" for p in packages if p not in found]
        found.update(packages)
        yield Hit(cmd.start_byte, cmd.end_byte,
                  f"find_package(CUDAToolkit) -> {', '.join(p for p in packages)}: ROCm ships one CMake package "
                  "per library", (Edit(start=cmd.start_byte, end=cmd.end_byte,
                                       text=f"\n{line_indent(data, cmd.start_byte)}".join(calls)),))
