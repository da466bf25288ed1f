/* porter hip_on_cuda: <hip/hip_runtime.h>.
 *
 * Stands in for: ROCm's hip_runtime.h - the header a HIP translation unit includes for the
 * runtime API and the kernel language (qualifiers, threadIdx & co., __syncthreads, atomics,
 * cross-lane functions, warpSize). Here it brings the CUDA runtime mapping
 * (hip_runtime_api.h) and a gfx950-like device side: wave64 cross-lane functions emulated
 * over pairs of NVIDIA warps, warpSize 64, the MFMA builtins porter emits.
 * Build: nvcc -std=c++17 -arch=sm_90 -I<porter>/shims/hip_on_cuda file.hip.cu (or -x cu file.hip).
 * Contract and limits: porter_hoc/wave.h (collectives), porter_hoc/mfma.h (MFMA), README.md.
 */
#pragma once
/* ROCm's include guard: ported code tests it (CUDA's __CUDA_RUNTIME_H__ maps to it). */
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H
#endif

#include <porter_hoc/all.h>
