/* porter overlay for <hip/amd_detail/hip_cooperative_groups_helper.h>: HIP 5.2's header, with the
 * one function it defines out of line made inline and the runtime header it relies on included,
 * as ROCm 6.x has them.
 *
 * HIP 5.2's helper uses hipBlockDim_x and its kin from amd_hip_runtime.h without including it, so
 * a unit that includes <hip/hip_cooperative_groups.h> before <hip/hip_runtime.h> (the order of
 * cooperative_groups.h and cuda_runtime.h in many CUDA programs) fails; ROCm 6.x's helper
 * includes the runtime header itself. This one includes the overlay's hip_runtime.h first.
 *
 * HIP 5.2 defines cooperative_groups::internal::coalesced_group::masked_bit_count as a plain
 * `__device__` function in this header; later HIP (ROCm 6.x) gives it __CG_STATIC_QUALIFIER__
 * (static, always inline) like the rest of the header. Under relocatable device code
 * (-fgpu-rdc, CMake's HIP_SEPARABLE_COMPILATION) two units that include cooperative groups then
 * define the symbol twice and the device link stops with "duplicate symbol". While HIP 5.2's
 * header is read, __device__ also says `inline`, which makes that one definition inline and is
 * a repeated specifier everywhere else in the header (the header's other functions already are).
 */
#pragma once

#include <hip/hip_runtime.h>

#pragma push_macro("__device__")
#undef __device__
#define __device__ __attribute__((device)) inline
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wduplicate-decl-specifier"
#include_next <hip/amd_detail/hip_cooperative_groups_helper.h>
#pragma clang diagnostic pop
#pragma pop_macro("__device__")
