/* porter hip_on_cuda: platform identity and warpSize.
 *
 * Stands in for: the compiler-defined macros a HIP program sees when clang compiles it for
 * gfx950 (__HIP_PLATFORM_AMD__, __HIPCC__, __HIP_DEVICE_COMPILE__, __GFX9__, __gfx950__,
 * __AMDGCN_WAVEFRONT_SIZE) and for HIP's `warpSize`.
 *
 * Why AMD's identity and not HIP's NVIDIA one (__HIP_PLATFORM_NVIDIA__): this directory
 * exists to run a port *as it will run on AMD*, wave64 included, so that a wave32
 * assumption surviving the port shows up as a numerical failure (porter DESIGN.md,
 * "Toolchains and verification backends"). Code that branches on the platform must take
 * its AMD branch here. AMD-only constructs this directory does not emulate (inline GCN
 * assembly, builtins not listed in porter_hoc/amdgcn.h) then fail to compile, which is the
 * honest outcome.
 *
 * Include order matters: every CUDA header that mentions warpSize or declares the warp
 * intrinsics is included here, while nvcc.opts' renames (CUDA's __shfl_sync -> 
 * porter_hoc_cuda_shfl_sync, ...) are in force; porter_hoc/cuda_names_off.h then ends them, so
 * that HIP's names can be declared (porter_hoc/hip_names.h). A CUDA header included after
 * <hip/hip_runtime.h> must be bracketed by porter_hoc/cuda_begin.h and porter_hoc/cuda_end.h
 * (the library headers of this directory do so).
 */
#pragma once

#if !defined(__CUDACC__)
#error "shims/hip_on_cuda is for nvcc (CUDA C++ mode): compile with nvcc -x cu or a .cu file"
#endif

/* nvcc.opts (beside this directory's hip/ and porter_hoc/) renames, with -D on the command
 * line, CUDA's 32-lane warp functions (__shfl_sync, __ballot, __any, __activemask, __syncwarp,
 * ...) to porter_hoc_cuda_*: nvcc includes cuda_runtime.h, which declares them, before the
 * first line of the source, and a declaration cannot be taken back, so the renaming must be in
 * force before it. HIP's names are then free for real functions (porter_hoc/hip_names.h). */
#if !defined(__shfl_sync) || !defined(__any) || !defined(__activemask)
#error "porter hip_on_cuda: build with nvcc --options-file <porter>/shims/hip_on_cuda/nvcc.opts (it renames CUDA's warp functions so that HIP's can be declared)"
#endif

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <type_traits>

/* From here on, HIP's names: the renames end (a CUDA header included later must be bracketed
 * by porter_hoc/cuda_begin.h and porter_hoc/cuda_end.h, as the library headers here do). */
#include <porter_hoc/cuda_names_off.h>

/* Marks this executor; ports and fixtures may test it. */
#define PORTER_HIP_ON_CUDA 1

/* PORTER_HOC_PLATFORM_NVIDIA builds the same program as HIP's NVIDIA platform would: 32-lane
 * warps, __HIP_PLATFORM_NVIDIA__, CUDA's macros visible. It is the native control of
 * bench/hip_on_cuda_control.py (HIP 5.2's own hip/nvidia_detail headers do not build with
 * CUDA 13), not an executor: it checks nothing about AMD. */
#if defined(PORTER_HOC_PLATFORM_NVIDIA)
#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
#ifndef __HIP_PLATFORM_NVCC__
#define __HIP_PLATFORM_NVCC__ 1
#endif
#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
#else

/* HIP's platform macros (hip_common.h on ROCm): we emulate the AMD platform, see above. */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#ifndef __HIP_PLATFORM_HCC__
#define __HIP_PLATFORM_HCC__ 1 /* the pre-ROCm-6 spelling of the same thing */
#endif
#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
/* clang defines __HIP__ for every HIP compilation (host and device passes alike); code that
 * switches on it must take its HIP branch in both passes here too, or a WARP_SIZE can be 32 on
 * the host and 64 on the device. */
#ifndef __HIP__
#define __HIP__ 1
#endif

/* Device-pass macros clang defines when it compiles for gfx950 (clang's AMDGPU target
 * defines __GFX9__ and __gfx950__ for the device compilation only; HARDWARE.md "Porting
 * facts" names __GFX9__ as the way ports get a compile-time wave size). nvcc's device pass
 * is the one with __CUDA_ARCH__. */
#if defined(__CUDA_ARCH__)
#ifndef __GFX9__
#define __GFX9__ 1
#endif
#ifndef __gfx950__
#define __gfx950__ 1
#endif
#endif

#endif /* PORTER_HOC_PLATFORM_NVIDIA */

/* The HIP version whose warp-function rules are reproduced (64-bit *_sync masks checked at
 * compile time: ROCm 6.3 release notes / HIP "Warp cross-lane functions"). Encoding as in
 * hip_version.h: major * 10,000,000 + minor * 100,000 + patch. */
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 3
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

/* Defined in the device pass on both HIP platforms (nvcc's device pass: __CUDA_ARCH__). */
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif

/* Wave size of gfx9 (CDNA): 64 (HARDWARE.md, Devices table and "Porting facts").
 * __AMDGCN_WAVEFRONT_SIZE is the (deprecated in ROCm 7) clang macro many ports still read. */
#if defined(PORTER_HOC_PLATFORM_NVIDIA)
#define PORTER_HOC_WAVE_SIZE 32
#else
#define PORTER_HOC_WAVE_SIZE 64
#ifndef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE 64
#endif
#ifndef __AMDGCN_WAVEFRONT_SIZE__
#define __AMDGCN_WAVEFRONT_SIZE__ 64
#endif
#endif

/* warpSize.
 * CUDA declares `warpSize` as a built-in device variable (device_launch_parameters.h) whose
 * value is 32; HIP code reads the identifier `warpSize` and must get 64. A global variable
 * cannot be redeclared, so the identifier is renamed by a macro to a `static constexpr
 * __device__ int` of value 64: usable in device code (also by reference), in host code, and
 * in constant expressions. (ROCm <= 6 also made it a compile-time constant; ROCm 7 does
 * not, so code that needs it constexpr is not portable - porter's WAVE rules flag that, this
 * executor does not.)
 * The macro renames the identifier everywhere after this point, so `prop.warpSize` becomes
 * `prop.porter_hoc_warpSize` - which is why hipDeviceProp_t (declared after this point, in
 * hip_runtime_api.h) carries a member spelled `warpSize` too: the rename is consistent. */
static constexpr __device__ int porter_hoc_warpSize = PORTER_HOC_WAVE_SIZE;
#define warpSize porter_hoc_warpSize
