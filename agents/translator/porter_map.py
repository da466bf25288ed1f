"""porter's own CUDA -> HIP names: what HIPIFY's and torch.utils.hipify's tables lack or spell as older ROCm did.

Data only; `tables.py` merges it ahead of HIPIFY's and hipify-torch's entries, so an entry here
wins: it is either missing there (FP8, extensible launch) or where HIPIFY 6.3 still names an older
ROCm API (__nv_bfloat16 -> hip_bfloat16, the rocBLAS-era struct, instead of __hip_bfloat16 of
hip/hip_bf16.h, which mirrors cuda_bf16.h). Each group cites where the HIP name is documented.
Kept as Python data rather than TOML so the wheel carries it with the code (pyproject's
package-data lists no .toml for porter.agents.translator).

Rows are (CUDA name, HIP name, family). A HIP name equal to the CUDA name means "same name in
ROCm" (RCCL exports the NCCL API); `UNSUPPORTED` lists names with no HIP counterpart.
"""

from __future__ import annotations

# FP8 in hip/hip_fp8.h: OCP types as below, FNUZ types as `*_fnuz` (gfx940/941/942 compute FNUZ only),
# rocm.docs.amd.com/projects/HIP/en/docs-6.3.3/reference/fp8_numbers.html.
FP8 = (
    ("__nv_fp8_e4m3", "__hip_fp8_e4m3", "runtime"),
    ("__nv_fp8_e5m2", "__hip_fp8_e5m2", "runtime"),
    ("__nv_fp8x2_e4m3", "__hip_fp8x2_e4m3", "runtime"),
    ("__nv_fp8x2_e5m2", "__hip_fp8x2_e5m2", "runtime"),
    ("__nv_fp8x4_e4m3", "__hip_fp8x4_e4m3", "runtime"),
    ("__nv_fp8x4_e5m2", "__hip_fp8x4_e5m2", "runtime"),
    ("__nv_fp8_storage_t", "__hip_fp8_storage_t", "runtime"),
    ("__nv_fp8x2_storage_t", "__hip_fp8x2_storage_t", "runtime"),
    ("__nv_fp8x4_storage_t", "__hip_fp8x4_storage_t", "runtime"),
    ("__nv_fp8_interpretation_t", "__hip_fp8_interpretation_t", "runtime"),
    ("__nv_saturation_t", "__hip_saturation_t", "runtime"),
    ("__NV_E4M3", "__HIP_E4M3", "runtime"),
    ("__NV_E5M2", "__HIP_E5M2", "runtime"),
    ("__NV_NOSAT", "__HIP_NOSAT", "runtime"),
    ("__NV_SATFINITE", "__HIP_SATFINITE", "runtime"),
    ("__nv_cvt_float_to_fp8", "__hip_cvt_float_to_fp8", "runtime"),
    ("__nv_cvt_float2_to_fp8x2", "__hip_cvt_float2_to_fp8x2", "runtime"),
    ("__nv_cvt_fp8_to_halfraw", "__hip_cvt_fp8_to_halfraw", "runtime"),
)

# cuda_bf16.h's public typedefs of __nv_bfloat16; hip/hip_bf16.h names the type __hip_bfloat16.
# hip/hip_bf16.h: rocm.docs.amd.com/projects/HIP/en/latest/reference/low_fp_types.html
BF16 = (
    ("__nv_bfloat16", "__hip_bfloat16", "runtime"),
    ("__nv_bfloat162", "__hip_bfloat162", "runtime"),
    ("nv_bfloat16", "__hip_bfloat16", "runtime"),
    ("nv_bfloat162", "__hip_bfloat162", "runtime"),
)

# Extensible launch (CUDA 11.8+): hipLaunchKernelEx / hipLaunchKernelExC take a hipLaunchConfig_t,
# rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/execution_control.html
LAUNCH = (
    ("cudaLaunchKernelEx", "hipLaunchKernelEx", "runtime"),
    ("cudaLaunchKernelExC", "hipLaunchKernelExC", "runtime"),
    ("cudaLaunchConfig_t", "hipLaunchConfig_t", "runtime"),
)

# RCCL implements the NCCL API under the same names (rocm.docs.amd.com/projects/rccl, API library);
# only the header moves (<rccl/rccl.h>, librccl-dev file list). Prefix rule, see tables.SAME_NAME_PREFIXES.
NCCL_PREFIXES = ("nccl", "NCCL_")

# The CUDA toolkit's own spellings of runtime pieces that hip/hip_runtime.h (or the named HIP
# header, all in HIP's include/hip/) declares; nvcc users include them directly now and then.
_RUNTIME_PIECES = tuple((h, "hip/hip_runtime.h", "runtime") for h in (
    "builtin_types.h", "common_functions.h", "device_atomic_functions.h", "device_atomic_functions.hpp",
    "device_double_functions.h", "device_types.h", "driver_functions.h", "host_defines.h",
    "texture_indirect_functions.h", "surface_indirect_functions.h",
    "sm_20_atomic_functions.h", "sm_20_atomic_functions.hpp", "sm_20_intrinsics.h", "sm_20_intrinsics.hpp",
    "sm_30_intrinsics.h", "sm_30_intrinsics.hpp", "sm_32_atomic_functions.h", "sm_32_atomic_functions.hpp",
    "sm_32_intrinsics.h", "sm_32_intrinsics.hpp", "sm_35_atomic_functions.h", "sm_35_intrinsics.h",
    "sm_60_atomic_functions.h", "sm_60_atomic_functions.hpp", "sm_61_intrinsics.h", "sm_61_intrinsics.hpp"))

# NVTX 3 (CUDA 12+ ships only include/nvtx3/) -> ROCTX, as torch maps the old nvToolsExt.h
# (rocm.docs.amd.com/projects/roctracer, ROCTX API: roctxRangePush/Pop, roctxMark).
_NVTX = tuple((h, "roctracer/roctx.h", "roctx") for h in (
    "nvtx3/nvToolsExt.h", "nvtx3/nvToolsExtCuda.h", "nvtx3/nvToolsExtCudaRt.h", "nvToolsExtCuda.h",
    "nvToolsExtCudaRt.h"))

# nvcc's own copies under crt/ (the toolkit's internal home of the same runtime pieces).
_CRT = tuple(("crt/" + h, hip, fam) for h, hip, fam in _RUNTIME_PIECES if not h.startswith("sm_")) + (
    ("crt/math_functions.h", "hip/math_functions.h", "runtime"),
    ("crt/device_functions.h", "hip/device_functions.h", "runtime"),
)

HEADERS = _RUNTIME_PIECES + _NVTX + _CRT + (
    ("math_functions.h", "hip/math_functions.h", "runtime"),
    ("texture_types.h", "hip/texture_types.h", "runtime"),
    ("surface_types.h", "hip/surface_types.h", "runtime"),
    ("vector_functions.h", "hip/hip_vector_types.h", "runtime"),
    ("vector_functions.hpp", "hip/hip_vector_types.h", "runtime"),
    ("cudaProfiler.h", "hip/hip_runtime_api.h", "runtime"),
    ("cuda_fp8.h", "hip/hip_fp8.h", "runtime"),
    ("math_constants.h", "hip/hip_math_constants.h", "runtime"),
    ("cusolverDn.h", "hipsolver/hipsolver.h", "solver"),
    ("cusolver_common.h", "hipsolver/hipsolver.h", "solver"),
    ("cusparse_v2.h", "hipsparse/hipsparse.h", "sparse"),
)

# Include guards of CUDA headers that code tests to learn whether a header was included
# (cuda-samples' helper_cuda.h defines checkCudaErrors under `#ifdef __DRIVER_TYPES_H__`): the
# guard of the HIP header that replaces it (hip/driver_types.h, hip/hip_runtime.h,
# hip/hip_runtime_api.h and hiprand/hiprand.h, HIP 5.2 through 6.3), so the code those blocks hold
# is compiled in the port too.
GUARDS = (
    ("__DRIVER_TYPES_H__", "HIP_INCLUDE_HIP_DRIVER_TYPES_H", "runtime"),
    ("__CUDA_RUNTIME_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", "runtime"),
    ("__CUDA_RUNTIME_API_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", "runtime"),
    ("CURAND_H_", "HIPRAND_H_", "rand"),
)

NAMES = FP8 + BF16 + LAUNCH + GUARDS

# Header directories, by their CUDA prefix: rocThrust installs Thrust under the same thrust/ paths
# (the CUDA backend's thrust/system/cuda/ is hipify-torch's thrust/system/hip/ prefix, longer and
# so first); any CUB header is served by hipCUB's umbrella header, as hipCUB mirrors CUB's API
# under one include (rocm.docs.amd.com/projects/hipCUB: "#include <hipcub/hipcub.hpp>").
HEADER_DIRS = (("thrust", "thrust", "thrust"),)
HEADER_UMBRELLAS = (("cub", "hipcub/hipcub.hpp", "cub"),)

# HIPIFY 6.3 writes these library headers top-level; ROCm installs each under include/<library>/
# (the ROCm 5.2 file reorganisation, whose top-level wrappers were deprecated then and are gone from
# current packages: e.g. librocblas-dev ships include/rocblas/rocblas.h). hiprtc.h is HIP's own.
HEADER_LAYOUT = {
    "hipblas.h": "hipblas/hipblas.h",
    "hipblaslt.h": "hipblaslt/hipblaslt.h",
    "hipsparse.h": "hipsparse/hipsparse.h",
    "hipsolver.h": "hipsolver/hipsolver.h",
    "rocblas.h": "rocblas/rocblas.h",
    "rocsparse.h": "rocsparse/rocsparse.h",
    "hiprtc.h": "hip/hiprtc.h",
}
