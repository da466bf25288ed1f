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
 * intrinsics (__shfl_sync, __ballot_sync, ...) is included here, *before* porter_hoc/aliases.h
 * renames those identifiers. A CUDA header included after <hip/hip_runtime.h> would see the
 * renames; HIP ports do not include CUDA headers, so this is documented, not handled.
 */
#pragma once

#if !defined(__CUDACC__)
#error "shims/hip_on_cuda is for nvcc (CUDA C++ mode): compile with nvcc -x cu or a .cu file"
#endif

#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <type_traits>

/* Marks this executor; ports and fixtures may test it. */
#define PORTER_HIP_ON_CUDA 1

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
/* hip-clang defines __HIP__ in HIP mode, in the host and the device pass alike; ported code
 * tests it to tell a HIP host pass from a plain C++ one (e.g. `defined(__HIP__) &&
 * !defined(__HIP_DEVICE_COMPILE__)` to pick the host's wave size). */
#ifndef __HIP__
#define __HIP__ 1
#endif

/* The HIP version whose warp-function rules are reproduced (64-bit *_sync masks checked at
 * compile time: ROCm 6.3 release notes / HIP "Warp cross-lane functions"). Encoding as in
 * hip_version.h: major * 10,000,000 + minor * 100,000 + patch. */
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 3
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

/* Device-pass macros clang defines when it compiles for gfx950 (clang's AMDGPU target
 * defines __GFX9__ and __gfx950__ for the device compilation only; HARDWARE.md "Porting
 * facts" names __GFX9__ as the way ports get a compile-time wave size). nvcc's device pass
 * is the one with __CUDA_ARCH__. */
#if defined(__CUDA_ARCH__)
#ifndef __HIP_DEVICE_COMPILE__
#define __HIP_DEVICE_COMPILE__ 1
#endif
#ifndef __GFX9__
#define __GFX9__ 1
#endif
#ifndef __gfx950__
#define __gfx950__ 1
#endif
#endif

/* Wave size of gfx9 (CDNA): 64 (HARDWARE.md, Devices table and "Porting facts").
 * __AMDGCN_WAVEFRONT_SIZE is the (deprecated in ROCm 7) clang macro many ports still read. */
#define PORTER_HOC_WAVE_SIZE 64
#ifndef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE 64
#endif
#ifndef __AMDGCN_WAVEFRONT_SIZE__
#define __AMDGCN_WAVEFRONT_SIZE__ 64
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
