/* porter hip_on_cuda: HIP device functions that CUDA lacks or names differently.
 *
 * Stands in for: parts of ROCm's amd_device_functions.h / amd_hip_atomic.h API (HIP C++
 * language extensions, "Atomic functions" and "Device-side functions"), written from the
 * documentation: the float/double atomicMin/atomicMax overloads, unsafeAtomicAdd /
 * safeAtomicAdd, atomicAddNoRet, and the hipThreadIdx_x family of macros. Everything else
 * a kernel uses (threadIdx, __syncthreads, atomicAdd, __popcll, __ffsll, __clzll, __ldg,
 * __half / bf16 arithmetic, printf) is CUDA's own, with the same name and meaning.
 */
#pragma once

#include <porter_hoc/config.h>

/* HIP's older index spellings. */
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

namespace porter_hoc {
/* Compare-and-swap loop for a floating-point min/max (HIP provides these, CUDA does not). */
template <class F, class Bits, class Pick>
__device__ inline F atomic_fp_pick(F* addr, F val, Pick pick) {
  Bits* p = reinterpret_cast<Bits*>(addr);
  Bits old = *p, assumed;
  do {
    assumed = old;
    F cur;
    memcpy(&cur, &assumed, sizeof(F));
    const F next = pick(cur, val);
    if (!(next != cur)) break;  // unchanged (also keeps -0.0 / NaN from looping)
    Bits nb;
    memcpy(&nb, &next, sizeof(F));
    old = atomicCAS(p, assumed, nb);
  } while (old != assumed);
  F r;
  memcpy(&r, &old, sizeof(F));
  return r;
}
}  // namespace porter_hoc

__device__ inline float atomicMax(float* addr, float val) {
  return porter_hoc::atomic_fp_pick<float, unsigned>(addr, val, [](float a, float b) { return fmaxf(a, b); });
}
__device__ inline float atomicMin(float* addr, float val) {
  return porter_hoc::atomic_fp_pick<float, unsigned>(addr, val, [](float a, float b) { return fminf(a, b); });
}
__device__ inline double atomicMax(double* addr, double val) {
  return porter_hoc::atomic_fp_pick<double, unsigned long long>(addr, val, [](double a, double b) { return fmax(a, b); });
}
__device__ inline double atomicMin(double* addr, double val) {
  return porter_hoc::atomic_fp_pick<double, unsigned long long>(addr, val, [](double a, double b) { return fmin(a, b); });
}

/* HIP's "unsafe" (may use hardware FP atomics that ignore denormals on MI200) and "safe"
 * variants, and the no-return form: all the same atomicAdd on NVIDIA. */
template <class T>
__device__ inline T unsafeAtomicAdd(T* addr, T val) { return atomicAdd(addr, val); }
template <class T>
__device__ inline T safeAtomicAdd(T* addr, T val) { return atomicAdd(addr, val); }
template <class T>
__device__ inline void atomicAddNoRet(T* addr, T val) { (void)atomicAdd(addr, val); }

/* HIP's bit-field device functions (HIP C++ language extensions, "Integer intrinsics"):
 * v_bfe_u32 / bitfield insert semantics - offset and width taken mod 32 (64). */
__device__ inline unsigned int __bitextract_u32(unsigned int src0, unsigned int src1, unsigned int src2) {
  const unsigned off = src1 & 31u, w = src2 & 31u;
  return w == 0 ? 0u : (src0 >> off) & ((1u << w) - 1u);
}
__device__ inline unsigned long long __bitextract_u64(unsigned long long src0, unsigned int src1, unsigned int src2) {
  const unsigned off = src1 & 63u, w = src2 & 63u;
  return w == 0 ? 0ull : (src0 >> off) & ((1ull << w) - 1ull);
}
__device__ inline unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1, unsigned int src2, unsigned int src3) {
  const unsigned off = src2 & 31u, w = src3 & 31u;
  const unsigned mask = w == 0 ? 0u : ((1u << w) - 1u);
  return (src0 & ~(mask << off)) | ((src1 & mask) << off);
}
__device__ inline unsigned long long __bitinsert_u64(unsigned long long src0, unsigned long long src1, unsigned int src2,
                                                     unsigned int src3) {
  const unsigned off = src2 & 63u, w = src3 & 63u;
  const unsigned long long mask = w == 0 ? 0ull : ((1ull << w) - 1ull);
  return (src0 & ~(mask << off)) | ((src1 & mask) << off);
}
/* HIP's constant-rate counter: AMD's runs at 100 MHz (hipDeviceAttributeWallClockRate); here
 * %globaltimer (ns) / 10, the same rate. */
__device__ inline unsigned long long wall_clock64() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t / 10ull;
}
