/* porter overlay: device-library stand-ins for the work-item and fence calls of HIP 5.2.
 *
 * HIP 5.2 implements threadIdx/blockIdx/blockDim/gridDim through __ockl_get_* and
 * __syncthreads/__threadfence through __atomic_work_item_fence, all defined in the ROCm
 * device libraries (ockl.bc, hip.bc). Debian's rocm-device-libs 5.2 has no bitcode for
 * gfx942/gfx950 (oclc_isa_version_940 is its newest), so porter compiles with -nogpulib.
 * Left undefined, every kernel would contain external calls, and the AMDGPU backend
 * then reports register counts and occupancy only as unresolved expressions
 * (Dynamic Stack: True). These definitions follow the documented semantics of the
 * ockl functions, with the clang builtins ROCm's own ockl uses for code object v5+.
 * They are weak so that linking real device libraries (-fgpu-rdc) still wins, and this
 * header must come after HIP 5.2's own declarations (device_library_decls.h).
 */
#pragma once

#if defined(__HIP_DEVICE_COMPILE__)
#include <stddef.h>

extern "C" {
__attribute__((device, weak)) size_t __ockl_get_local_id(unsigned int __d) {
  return __d == 0 ? __builtin_amdgcn_workitem_id_x()
       : __d == 1 ? __builtin_amdgcn_workitem_id_y()
       : __d == 2 ? __builtin_amdgcn_workitem_id_z() : 0;
}
__attribute__((device, weak)) size_t __ockl_get_group_id(unsigned int __d) {
  return __d == 0 ? __builtin_amdgcn_workgroup_id_x()
       : __d == 1 ? __builtin_amdgcn_workgroup_id_y()
       : __d == 2 ? __builtin_amdgcn_workgroup_id_z() : 0;
}
/* Workgroup and grid sizes come from the hidden kernel arguments (code object v5). */
__attribute__((device, weak)) size_t __ockl_get_local_size(unsigned int __d) {
  return __d == 0 ? __builtin_amdgcn_workgroup_size_x()
       : __d == 1 ? __builtin_amdgcn_workgroup_size_y()
       : __d == 2 ? __builtin_amdgcn_workgroup_size_z() : 1;
}
__attribute__((device, weak)) size_t __ockl_get_global_size(unsigned int __d) {
  return __d == 0 ? __builtin_amdgcn_grid_size_x()
       : __d == 1 ? __builtin_amdgcn_grid_size_y()
       : __d == 2 ? __builtin_amdgcn_grid_size_z() : 1;
}
__attribute__((device, weak)) size_t __ockl_get_num_groups(unsigned int __d) {
  size_t __wg = __ockl_get_local_size(__d);
  size_t __grid = __ockl_get_global_size(__d);
  return (__grid + __wg - 1) / __wg; /* a partial last workgroup counts, as in OpenCL */
}
__attribute__((device, weak)) size_t __ockl_get_global_id(unsigned int __d) {
  return __ockl_get_group_id(__d) * __ockl_get_local_size(__d) + __ockl_get_local_id(__d);
}
/* HIP 5.2 passes OpenCL memory orders and scopes (device_library_decls.h); the
 * AMDGPU fence builtin wants a constant order and a sync-scope name. */
#define __PORTER_FENCE(__sync_scope)                                            \
  switch (__order) {                                                            \
    case __memory_order_relaxed: break;                                         \
    case __memory_order_acquire: __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, __sync_scope); break; \
    case __memory_order_release: __builtin_amdgcn_fence(__ATOMIC_RELEASE, __sync_scope); break; \
    case __memory_order_acq_rel: __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, __sync_scope); break; \
    default: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, __sync_scope); break;     \
  }
__attribute__((device, weak)) void __atomic_work_item_fence(__cl_mem_fence_flags __flags,
                                                            __memory_order __order,
                                                            __memory_scope __scope) {
  (void)__flags; /* AMDGPU fences order all address spaces; the flags cannot narrow it */
  switch (__scope) {
    case __memory_scope_work_item: break;
    case __memory_scope_sub_group: __PORTER_FENCE("wavefront") break;
    case __memory_scope_work_group: __PORTER_FENCE("workgroup") break;
    case __memory_scope_device: __PORTER_FENCE("agent") break;
    default: __PORTER_FENCE("") break;
  }
}
}
#undef __PORTER_FENCE
#endif
