/* porter hip_on_cuda: <hip/hip_bf16.h>.
 *
 * Stands in for: ROCm's hip_bf16.h (__hip_bfloat16, __hip_bfloat162 and their intrinsics,
 * ROCm 6.x). HIP modelled that API on CUDA's cuda_bf16.h: the functions carry CUDA's names
 * (__float2bfloat16, __bfloat162float, __hadd, __hmul, __hfma, __float22bfloat162_rn, ...),
 * so the types are CUDA's and only the type names are HIP's.
 */
#pragma once

#include <porter_hoc/all.h>

typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
typedef __nv_bfloat16_raw __hip_bfloat16_raw;
typedef __nv_bfloat162_raw __hip_bfloat162_raw;
