/* porter hip_on_cuda: HIP's cross-lane names as real functions.
 *
 * Stands in for: the declarations of __shfl, __shfl_up, __shfl_down, __shfl_xor, __ballot,
 * __any, __all, __activemask, __lane_id, the *_sync forms with 64-bit masks, __match_any_sync /
 * __match_all_sync and __syncwarp in ROCm's amd_warp_functions.h / amd_warp_sync_functions.h
 * (HIP C++ language extensions, "Warp cross-lane functions", ROCm 6.3).
 *
 * These are functions and function templates at global scope, as in HIP - never macros - so
 * that a program may take their address, call them qualified (`::__shfl`), or carry its own
 * `#define __shfl(v, d) __shfl(v, d)`, and so that CUDA's own headers (CCCL, CUB) that use
 * identifiers such as `__any` are not rewritten. CUDA declares most of these names with
 * 32-lane meaning before the first line of a translation unit; nvcc.opts renames CUDA's to
 * porter_hoc_cuda_* (see porter_hoc/config.h), which frees the names for HIP's.
 *
 * With PORTER_HOC_PLATFORM_NVIDIA (the NVIDIA-platform control, see config.h) they keep the
 * meaning HIP gives them on its NVIDIA platform: CUDA's 32-lane warp functions over the
 * active lanes, 64-bit ballots whose upper half is 0.
 */
#pragma once

#include <porter_hoc/wave.h>

#if !defined(PORTER_HOC_PLATFORM_NVIDIA)

template <class T>
__device__ inline T __shfl(T var, int src_lane, int width = warpSize) {
  return ::porter_hoc::shfl(var, src_lane, width);
}
template <class T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::shfl_up(var, delta, width);
}
template <class T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::shfl_down(var, delta, width);
}
template <class T>
__device__ inline T __shfl_xor(T var, int lane_mask, int width = warpSize) {
  return ::porter_hoc::shfl_xor(var, lane_mask, width);
}
__device__ inline unsigned long long __ballot(int predicate) { return ::porter_hoc::ballot(predicate); }
__device__ inline int __any(int predicate) { return ::porter_hoc::any(predicate); }
__device__ inline int __all(int predicate) { return ::porter_hoc::all(predicate); }
__device__ inline unsigned long long __activemask() { return ::porter_hoc::activemask(); }

template <class MaskT, class T>
__device__ inline T __shfl_sync(MaskT mask, T var, int src_lane, int width = warpSize) {
  return ::porter_hoc::shfl_sync(mask, var, src_lane, width);
}
template <class MaskT, class T>
__device__ inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::shfl_up_sync(mask, var, delta, width);
}
template <class MaskT, class T>
__device__ inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::shfl_down_sync(mask, var, delta, width);
}
template <class MaskT, class T>
__device__ inline T __shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = warpSize) {
  return ::porter_hoc::shfl_xor_sync(mask, var, lane_mask, width);
}
template <class MaskT>
__device__ inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
  return ::porter_hoc::ballot_sync(mask, predicate);
}
template <class MaskT>
__device__ inline int __any_sync(MaskT mask, int predicate) { return ::porter_hoc::any_sync(mask, predicate); }
template <class MaskT>
__device__ inline int __all_sync(MaskT mask, int predicate) { return ::porter_hoc::all_sync(mask, predicate); }
template <class MaskT, class T>
__device__ inline unsigned long long __match_any_sync(MaskT mask, T value) {
  return ::porter_hoc::match_any_sync(mask, value);
}
template <class MaskT, class T>
__device__ inline unsigned long long __match_all_sync(MaskT mask, T value, int* pred) {
  return ::porter_hoc::match_all_sync(mask, value, pred);
}
/* A barrier of the caller's wave (the mask, if any, is accepted and ignored: every live lane
 * takes part, porter_hoc/wave.h Contract). */
__device__ inline void __syncwarp() { ::porter_hoc::wave_sync(); }
template <class MaskT>
__device__ inline void __syncwarp(MaskT mask) { ::porter_hoc::wave_sync(mask); }

#else  /* PORTER_HOC_PLATFORM_NVIDIA: HIP's NVIDIA platform (hip/nvidia_detail) semantics */

namespace porter_hoc {
namespace nv {
enum class Shfl { idx, up, down, bfly };
/* CUDA's shuffle of any value of <= 8 bytes over the active lanes, as HIP-on-NVIDIA does. */
template <class T>
__device__ inline T shuffle(Shfl kind, T var, int arg, int width) {
  const unsigned live = porter_hoc_cuda_activemask();
  const unsigned long long bits = to_bits(var);
  unsigned long long out = 0;
  for (int word = 0; word < (sizeof(T) > 4 ? 2 : 1); ++word) {
    const unsigned w = static_cast<unsigned>(bits >> (32 * word));
    unsigned r;
    switch (kind) {
      case Shfl::idx: r = porter_hoc_cuda_shfl_sync(live, w, arg, width); break;
      case Shfl::up: r = porter_hoc_cuda_shfl_up_sync(live, w, static_cast<unsigned>(arg), width); break;
      case Shfl::down: r = porter_hoc_cuda_shfl_down_sync(live, w, static_cast<unsigned>(arg), width); break;
      default: r = porter_hoc_cuda_shfl_xor_sync(live, w, arg, width); break;
    }
    out |= static_cast<unsigned long long>(r) << (32 * word);
  }
  return from_bits<T>(out);
}
}  // namespace nv
}  // namespace porter_hoc

template <class T>
__device__ inline T __shfl(T var, int src_lane, int width = warpSize) {
  return ::porter_hoc::nv::shuffle(::porter_hoc::nv::Shfl::idx, var, src_lane, width);
}
template <class T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::nv::shuffle(::porter_hoc::nv::Shfl::up, var, static_cast<int>(delta), width);
}
template <class T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return ::porter_hoc::nv::shuffle(::porter_hoc::nv::Shfl::down, var, static_cast<int>(delta), width);
}
template <class T>
__device__ inline T __shfl_xor(T var, int lane_mask, int width = warpSize) {
  return ::porter_hoc::nv::shuffle(::porter_hoc::nv::Shfl::bfly, var, lane_mask, width);
}
__device__ inline unsigned long long __ballot(int p) { return porter_hoc_cuda_ballot_sync(porter_hoc_cuda_activemask(), p); }
__device__ inline int __any(int p) { return porter_hoc_cuda_any_sync(porter_hoc_cuda_activemask(), p); }
__device__ inline int __all(int p) { return porter_hoc_cuda_all_sync(porter_hoc_cuda_activemask(), p); }
__device__ inline unsigned long long __activemask() { return porter_hoc_cuda_activemask(); }
template <class MaskT, class T>
__device__ inline T __shfl_sync(MaskT, T var, int src_lane, int width = warpSize) { return __shfl(var, src_lane, width); }
template <class MaskT, class T>
__device__ inline T __shfl_up_sync(MaskT, T var, unsigned int d, int width = warpSize) { return __shfl_up(var, d, width); }
template <class MaskT, class T>
__device__ inline T __shfl_down_sync(MaskT, T var, unsigned int d, int width = warpSize) { return __shfl_down(var, d, width); }
template <class MaskT, class T>
__device__ inline T __shfl_xor_sync(MaskT, T var, int m, int width = warpSize) { return __shfl_xor(var, m, width); }
template <class MaskT>
__device__ inline unsigned long long __ballot_sync(MaskT m, int p) { return porter_hoc_cuda_ballot_sync(static_cast<unsigned>(m), p); }
template <class MaskT>
__device__ inline int __any_sync(MaskT m, int p) { return porter_hoc_cuda_any_sync(static_cast<unsigned>(m), p); }
template <class MaskT>
__device__ inline int __all_sync(MaskT m, int p) { return porter_hoc_cuda_all_sync(static_cast<unsigned>(m), p); }
template <class MaskT, class T>
__device__ inline unsigned long long __match_any_sync(MaskT m, T v) { return porter_hoc_cuda_match_any_sync(static_cast<unsigned>(m), v); }
template <class MaskT, class T>
__device__ inline unsigned long long __match_all_sync(MaskT m, T v, int* pred) {
  return porter_hoc_cuda_match_all_sync(static_cast<unsigned>(m), v, pred);
}
__device__ inline void __syncwarp() { porter_hoc_cuda_syncwarp(0xffffffffu); }
template <class MaskT>
__device__ inline void __syncwarp(MaskT m) { porter_hoc_cuda_syncwarp(static_cast<unsigned>(m)); }

#endif

/* HIP's lane id (0..warpSize-1). */
__device__ inline unsigned int __lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % PORTER_HOC_WAVE_SIZE;
}
