/* porter hip_on_cuda: <hip/hip_fp16.h>.
 *
 * Stands in for: ROCm's hip_fp16.h (__half, __half2 and their intrinsics). HIP's half API is
 * CUDA's (same type and function names: __float2half, __half2float, __hadd, __hmul2, ...),
 * so this is cuda_fp16.h, included by porter_hoc/config.h before the warp-intrinsic renames.
 * HIP-only spellings are added below. _Float16 (clang) is not available under nvcc.
 */
#pragma once

#include <porter_hoc/all.h>

/* HIP spells the raw storage types as CUDA does (__half_raw, __half2_raw). */
