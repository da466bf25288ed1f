/* porter hip_on_cuda: HIP's cross-lane names bound to the wave64 emulation.
 *
 * Stands in for: the declarations of __shfl*, __ballot, __any, __all, __activemask, the
 * *_sync forms, __match_*_sync and __syncwarp in ROCm's amd_warp_functions.h /
 * amd_warp_sync_functions.h.
 *
 * CUDA already declares most of these names with 32-lane meaning (sm_30_intrinsics.h,
 * included by nvcc before any source line), so they cannot be declared again with other
 * semantics (overload resolution would pick CUDA's for some argument types). Function-like
 * macros rename every later call instead. This header must come after every CUDA header
 * (porter_hoc/config.h includes the ones that matter) and after porter_hoc's own
 * implementation, which calls CUDA's __ballot_sync / __syncwarp.
 */
#pragma once

#include <porter_hoc/wave.h>

#define __shfl(...) ::porter_hoc::shfl(__VA_ARGS__)
#define __shfl_up(...) ::porter_hoc::shfl_up(__VA_ARGS__)
#define __shfl_down(...) ::porter_hoc::shfl_down(__VA_ARGS__)
#define __shfl_xor(...) ::porter_hoc::shfl_xor(__VA_ARGS__)
#define __ballot(pred) ::porter_hoc::ballot(pred)
#define __any(pred) ::porter_hoc::any(pred)
#define __all(pred) ::porter_hoc::all(pred)
#define __activemask() ::porter_hoc::activemask()

#define __shfl_sync(...) ::porter_hoc::shfl_sync(__VA_ARGS__)
#define __shfl_up_sync(...) ::porter_hoc::shfl_up_sync(__VA_ARGS__)
#define __shfl_down_sync(...) ::porter_hoc::shfl_down_sync(__VA_ARGS__)
#define __shfl_xor_sync(...) ::porter_hoc::shfl_xor_sync(__VA_ARGS__)
#define __ballot_sync(mask, pred) ::porter_hoc::ballot_sync((mask), (pred))
#define __any_sync(mask, pred) ::porter_hoc::any_sync((mask), (pred))
#define __all_sync(mask, pred) ::porter_hoc::all_sync((mask), (pred))
#define __match_any_sync(mask, value) ::porter_hoc::match_any_sync((mask), (value))
#define __match_all_sync(mask, value, pred) ::porter_hoc::match_all_sync((mask), (value), (pred))
#define __syncwarp(...) ::porter_hoc::wave_sync(__VA_ARGS__)
