/* porter hip_on_cuda: a few non-MFMA AMDGCN builtins that HIP ports use directly.
 *
 * Stands in for: clang's __builtin_amdgcn_{readfirstlane, ds_bpermute, ds_permute,
 * mbcnt_lo, mbcnt_hi, wavefrontsize, wave_barrier, s_barrier} and the scheduling hints
 * (s_waitcnt, sched_barrier, sched_group_barrier, s_setprio, s_sleep, iglp_opt), with the
 * semantics documented for them in the LLVM AMDGPU usage guide and the CDNA3 ISA guide.
 * nvcc does not know these names, so function-like macros are legal.
 * Scheduling hints do not change results and become no-ops. Builtins not listed here fail to
 * compile, which is the intended signal that the executor cannot run the port.
 */
#pragma once

#include <porter_hoc/wave.h>

namespace porter_hoc {

/* Value of the lowest active lane (v_readfirstlane_b32). */
template <class T>
__device__ inline T readfirstlane(T v) {
  WaveCall c;
  c.publish(to_bits(v));
  const unsigned first = static_cast<unsigned>(__ffsll(static_cast<long long>(c.live())) - 1);
  const T r = from_bits<T>(c.value_of(first));
  c.finish();
  return r;
}

/* ds_bpermute_b32: "pull" - lane reads `data` of lane (byte_addr / 4) % 64; 0 if inactive. */
__device__ inline int ds_bpermute(int byte_addr, int data) {
  WaveCall c;
  c.publish(static_cast<unsigned>(data));
  const int r = static_cast<int>(c.value_of((static_cast<unsigned>(byte_addr) >> 2) % 64u));
  c.finish();
  return r;
}

/* ds_permute_b32: "push" - lane sends `data` to lane (byte_addr / 4) % 64; a lane that
 * receives several values keeps the one from the highest source lane, none gives 0. */
__device__ inline int ds_permute(int byte_addr, int data) {
  WaveCall c;
  const unsigned dest = (static_cast<unsigned>(byte_addr) >> 2) % 64u;
  c.publish(static_cast<unsigned long long>(dest) << 32 | static_cast<unsigned>(data));
  int r = 0;
  for (unsigned l = 0; l < 64; ++l) {
    if (!((c.live() >> l) & 1ull)) continue;
    const unsigned long long s = c.value_of(l);
    if (static_cast<unsigned>(s >> 32) == c.lane()) r = static_cast<int>(static_cast<unsigned>(s));
  }
  c.finish();
  return r;
}

/* v_mbcnt_lo/hi: acc + number of set bits of `mask` below the caller's lane, split in the
 * lanes-0-31 (lo) and lanes-32-63 (hi) words. mbcnt_hi(~0, mbcnt_lo(~0, 0)) is the lane id. */
__device__ inline unsigned mbcnt_lo(unsigned mask, unsigned acc) {
  const unsigned l = lane_id();
  const unsigned below = l >= 32 ? 0xffffffffu : ((1u << l) - 1u);
  return acc + __popc(mask & below);
}
__device__ inline unsigned mbcnt_hi(unsigned mask, unsigned acc) {
  const unsigned l = lane_id();
  const unsigned below = l < 32 ? 0u : ((1u << (l - 32)) - 1u);
  return acc + __popc(mask & below);
}

}  // namespace porter_hoc

#define __builtin_amdgcn_readfirstlane(v) ::porter_hoc::readfirstlane(v)
#define __builtin_amdgcn_ds_bpermute(addr, v) ::porter_hoc::ds_bpermute((addr), (v))
#define __builtin_amdgcn_ds_permute(addr, v) ::porter_hoc::ds_permute((addr), (v))
#define __builtin_amdgcn_mbcnt_lo(mask, acc) ::porter_hoc::mbcnt_lo((mask), (acc))
#define __builtin_amdgcn_mbcnt_hi(mask, acc) ::porter_hoc::mbcnt_hi((mask), (acc))
#define __builtin_amdgcn_wavefrontsize() (PORTER_HOC_WAVE_SIZE)
/* On AMD a scheduling barrier for the (lockstep) wave; here a real barrier of the two warps,
 * so wave-synchronous LDS code that uses it stays correct. */
#define __builtin_amdgcn_wave_barrier() ::porter_hoc::wave_sync()
#define __builtin_amdgcn_s_barrier() __syncthreads()
#define __builtin_amdgcn_s_waitcnt(...) ((void)0)
#define __builtin_amdgcn_sched_barrier(...) ((void)0)
#define __builtin_amdgcn_sched_group_barrier(...) ((void)0)
#define __builtin_amdgcn_iglp_opt(...) ((void)0)
#define __builtin_amdgcn_s_setprio(...) ((void)0)
#define __builtin_amdgcn_s_sleep(...) ((void)0)
