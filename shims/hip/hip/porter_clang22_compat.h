/* porter overlay: clang-22 compatibility for the Debian HIP 5.2 headers.
 *
 * Stands in for nothing in ROCm: it restores what HIP 5.2's headers expect from the
 * compiler and from the ROCm device libraries, so that a port is judged by the
 * ROCm 6.3 API the other overlay headers declare and not by header/compiler skew.
 * Included by the overlay's hip_runtime.h and hip_fp16.h before the Debian headers.
 */
#pragma once

/* LLVM deprecated the __AMDGCN_WAVEFRONT_SIZE macro in clang 20 and clang 22 no
 * longer predefines it; HIP 5.2's amd_warp_functions.h initialises warpSize from it.
 * gfx9 (gfx942, gfx950) runs wave64 only, and the host side of HIP 5.2 saw 64 too. */
#if !defined(__AMDGCN_WAVEFRONT_SIZE)
#  if defined(__HIP_DEVICE_COMPILE__) && !defined(__GFX9__)
#    error "porter overlay: only gfx9 (wave64) device targets are supported; define __AMDGCN_WAVEFRONT_SIZE"
#  endif
#  define __AMDGCN_WAVEFRONT_SIZE 64
#endif

/* HIP 5.2's hip_fp16_math_fwd.h skips its own declarations when clang's runtime
 * wrapper is in use, relying on the wrapper to declare __llvm_amdgcn_rcp_f16 and
 * __llvm_amdgcn_rcp_2f16; clang 22's __clang_hip_libdevice_declares.h no longer does.
 * Both map to the v_rcp_f16 instruction (clang builtin __builtin_amdgcn_rcph). */
#if defined(__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__)
typedef _Float16 __2f16 __attribute__((ext_vector_type(2)));
extern "C" {
__attribute__((device)) inline _Float16 __llvm_amdgcn_rcp_f16(_Float16 __x) {
  return static_cast<_Float16>(__builtin_amdgcn_rcph(__x)); /* the builtin yields __fp16 */
}
__attribute__((device)) inline __2f16 __llvm_amdgcn_rcp_2f16(__2f16 __x) {
  return __2f16{__llvm_amdgcn_rcp_f16(__x.x), __llvm_amdgcn_rcp_f16(__x.y)};
}
}
#endif
