"""porter's own CUDA -> HIP names: what torch.utils.hipify's tables (hipify 2.0, torch 2.13) lack.

Data only; `tables.py` merges it under the hipify-torch entries (an entry here never overrides
one there) and it is the whole table when torch is not installed. Each group cites where the
HIP name is documented. Kept as Python data rather than TOML so the wheel carries it with the
code (pyproject's package-data lists no .toml for porter.agents.translator).

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
BF16 = (
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

HEADERS = (
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
