/* porter overlay for <hip/hip_runtime_api.h>: ROCm 6.3's device properties and C++ allocation
 * wrappers on Debian's HIP 5.2.
 *
 * The device properties: ROCm 6.x's hipDeviceProp_t (R0600 layout), porter_device_prop.h.
 *
 * ROCm 6.3's hip_runtime_api.h gives C++ callers typed overloads of the allocation calls, so a
 * port writes hipHostAlloc(&int_ptr, bytes, flags) as the CUDA original wrote cudaHostAlloc,
 * without a cast to void** (HIP runtime API reference, Memory management: "C++ wrapper for
 * hipHostAlloc" / "hipMallocPitch"; suppressed by __HIP_DISABLE_CPP_FUNCTIONS__). HIP 5.2
 * already has the hipMalloc, hipHostMalloc and hipMallocManaged ones; this adds the two it
 * lacks, each forwarding to the void** form, and hipHostAllocDefault, the flag name ROCm 6.3
 * uses as their default (the same value as hipHostMallocDefault).
 */
#pragma once

#include_next <hip/hip_runtime_api.h>

#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#include "porter_device_prop.h"
#endif

#ifndef hipHostAllocDefault
#define hipHostAllocDefault 0x0
#endif

#if defined(__cplusplus) && !defined(__HIP_DISABLE_CPP_FUNCTIONS__)
template <class T>
static inline hipError_t hipHostAlloc(T** ptr, size_t size, unsigned int flags = hipHostAllocDefault) {
  return hipHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline hipError_t hipMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return hipMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
#endif
