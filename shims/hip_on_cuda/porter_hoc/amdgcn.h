/* porter hip_on_cuda: a few non-MFMA AMDGCN builtins that HIP ports use directly.
 *
 * Stands in for: clang's __builtin_amdgcn_{readfirstlane, ds_bpermute, ds_permute,
 * mbcnt_lo, mbcnt_hi, read_exec (_lo, _hi), wavefrontsize, wave_barrier, s_barrier, perm, ubfe, sbfe, fence} and the scheduling hints
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
  const unsigned long long bits = to_bits(v);
  WaveCall c;
  c.publish(static_cast<unsigned>(bits));
  const unsigned first = static_cast<unsigned>(__ffsll(static_cast<long long>(c.live())) - 1);
  unsigned long long r = c.value_of(first);
  c.finish();
  if (sizeof(T) > 4) r |= static_cast<unsigned long long>(read_word(static_cast<unsigned>(bits >> 32), first)) << 32;
  return from_bits<T>(r);
}

/* ds_bpermute_b32: "pull" - lane reads `data` of lane (byte_addr / 4) % 64; 0 if inactive. */
__device__ inline int ds_bpermute(int byte_addr, int data) {
  return static_cast<int>(read_word(static_cast<unsigned>(data), (static_cast<unsigned>(byte_addr) >> 2) % 64u));
}

/* ds_permute_b32: "push" - lane sends `data` to lane (byte_addr / 4) % 64; a lane that
 * receives several values keeps the one from the highest source lane, none gives 0. Two
 * calls: the destinations (to find the caller's source), then the data. */
__device__ inline int ds_permute(int byte_addr, int data) {
  const unsigned dest = (static_cast<unsigned>(byte_addr) >> 2) % 64u;
  WaveCall c;
  c.publish(dest);
  int src = -1;
  for (unsigned l = 0; l < 64; ++l)
    if (((c.live() >> l) & 1ull) && c.value_of(l) == c.lane()) src = static_cast<int>(l);
  c.finish();
  const unsigned got = read_word(static_cast<unsigned>(data), src < 0 ? 0u : static_cast<unsigned>(src));
  return src < 0 ? 0 : static_cast<int>(got);
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

/* Per-lane ALU builtins that ports use and nvcc lacks; no cross-lane traffic.
 * v_perm_b32 (CDNA3 ISA, "V_PERM_B32"): byte i of the result is chosen by byte i of `sel`
 * from the 8 bytes {src1 (bytes 0-3), src0 (bytes 4-7)}; 8-11 replicate a sign bit (bit 15, 31,
 * 47, 63 of that pair), 12 gives 0x00, 13 and above 0xFF. */
__device__ inline unsigned perm_b32(unsigned src0, unsigned src1, unsigned sel) {
  const unsigned long long x = (static_cast<unsigned long long>(src0) << 32) | src1;
  unsigned out = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned code = (sel >> (8 * i)) & 0xffu;
    unsigned byte;
    if (code >= 13) byte = 0xffu;
    else if (code == 12) byte = 0u;
    else if (code >= 8) byte = ((x >> (15 + 16 * (code - 8))) & 1ull) ? 0xffu : 0u;
    else byte = static_cast<unsigned>(x >> (8 * code)) & 0xffu;
    out |= byte << (8 * i);
  }
  return out;
}

/* v_bfe_u32 / v_bfe_i32: offset and width are taken mod 32 (their low 5 bits); width 0 gives 0. */
__device__ inline unsigned ubfe(unsigned x, unsigned offset, unsigned width) {
  offset &= 31u; width &= 31u;
  return width == 0 ? 0u : (x >> offset) & ((1u << width) - 1u);
}
__device__ inline int sbfe(int x, unsigned offset, unsigned width) {
  offset &= 31u; width &= 31u;
  if (width == 0) return 0;
  const unsigned field = (static_cast<unsigned>(x) >> offset) & ((1u << width) - 1u);
  const unsigned sign = 1u << (width - 1);
  return static_cast<int>((field ^ sign) - sign);
}

/* s_mov_b64 exec (clang's __builtin_amdgcn_read_exec, _lo/_hi for its two words): the wave's
 * active lanes, bit i = lane i, i.e. activemask() - exited lanes are inactive, as on AMD. A wave
 * collective like every cross-lane call here (the contract in porter_hoc/wave.h): all live lanes
 * of the wave call it together. A half of the wave that has returned, or is elsewhere, reads as
 * inactive after the bounded wait of the wave barrier (porter's MFMA helpers take their one-half
 * path on exactly that: shims/compat/mfma_gfx950.h, half_wave_step). */
__device__ inline unsigned long long read_exec() { return activemask(); }


/* v_readlane_b32: the value of lane `src` (0..63), the same in every lane. */
template <class T>
__device__ inline T readlane(T v, int src) { return read_lane(v, static_cast<unsigned>(src) % 64u); }

/* ds_swizzle_b32 (CDNA3 ISA, "DS_SWIZZLE_B32"): offset bit 15 set - quad-permute mode, lane
 * 4q+i reads lane 4q + offset[2i+1:2i]; clear - bit-mask mode within each group of 32 lanes,
 * lane reads ((lane & and) | or) ^ xor with and = offset[4:0], or = offset[9:5],
 * xor = offset[14:10]. Both stay within the caller's 32-lane half, hence its NVIDIA warp. */
__device__ inline int ds_swizzle(int data, int offset) {
  const unsigned l = lane_id();
  const unsigned off = static_cast<unsigned>(offset);
  unsigned src;
  if (off & 0x8000u) {
    src = (l & ~3u) | ((off >> (2u * (l & 3u))) & 3u);
  } else {
    const unsigned and_m = off & 31u, or_m = (off >> 5) & 31u, xor_m = (off >> 10) & 31u;
    src = (l & 32u) | ((((l & 31u) & and_m) | or_m) ^ xor_m);
  }
  return read_lane_in_warp(data, src);
}

/* v_med3_f32: the median of three (NaN handling as fminf/fmaxf). */
__device__ inline float fmed3(float a, float b, float c) { return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c)); }
__device__ inline __half fmed3h(__half a, __half b, __half c) {
  return __float2half(fmed3(__half2float(a), __half2float(b), __half2float(c)));
}

/* s_memtime / s_memrealtime: a 64-bit counter (the GPU's clock64; %globaltimer for the
 * real-time one, in ns where AMD counts 100 MHz ticks - a program may only take differences). */
__device__ inline unsigned long long memtime() { return static_cast<unsigned long long>(clock64()); }
__device__ inline unsigned long long memrealtime() { return globaltimer_ns() / 10ull; }

}  // namespace porter_hoc

#define __builtin_amdgcn_readfirstlane(v) ::porter_hoc::readfirstlane(v)
#define __builtin_amdgcn_ds_bpermute(addr, v) ::porter_hoc::ds_bpermute((addr), (v))
#define __builtin_amdgcn_ds_permute(addr, v) ::porter_hoc::ds_permute((addr), (v))
#define __builtin_amdgcn_read_exec() ::porter_hoc::read_exec()
#define __builtin_amdgcn_read_exec_lo() static_cast<unsigned>(::porter_hoc::read_exec())
#define __builtin_amdgcn_read_exec_hi() static_cast<unsigned>(::porter_hoc::read_exec() >> 32)
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
/* clang's nontemporal builtins (porter's SHIM001 piece builds __ldcs/__stcs on them) are plain
 * accesses here: the cache hint changes no value, and this executor checks values, not speed. */
#define __builtin_nontemporal_load(p) (*(p))
#define __builtin_nontemporal_store(v, p) (void)(*(p) = (v))
#define __builtin_amdgcn_perm(src0, src1, sel) ::porter_hoc::perm_b32((src0), (src1), (sel))
#define __builtin_amdgcn_ubfe(x, offset, width) ::porter_hoc::ubfe((x), (offset), (width))
#define __builtin_amdgcn_sbfe(x, offset, width) ::porter_hoc::sbfe((x), (offset), (width))
/* __builtin_amdgcn_fence(order, "scope"): a device-wide fence is at least as strong as any
 * scope a port asks for (wavefront, workgroup, agent). */
#define __builtin_amdgcn_fence(order, ...) __threadfence()
#define __builtin_amdgcn_readlane(v, lane) ::porter_hoc::readlane((v), (lane))
#define __builtin_amdgcn_ds_swizzle(v, pattern) ::porter_hoc::ds_swizzle((v), (pattern))
#define __builtin_amdgcn_fmed3f(a, b, c) ::porter_hoc::fmed3((a), (b), (c))
#define __builtin_amdgcn_fmed3h(a, b, c) ::porter_hoc::fmed3h((a), (b), (c))
#define __builtin_amdgcn_s_memtime() ::porter_hoc::memtime()
#define __builtin_amdgcn_s_memrealtime() ::porter_hoc::memrealtime()
#define __builtin_amdgcn_workitem_id_x() (threadIdx.x)
#define __builtin_amdgcn_workitem_id_y() (threadIdx.y)
#define __builtin_amdgcn_workitem_id_z() (threadIdx.z)
#define __builtin_amdgcn_workgroup_id_x() (blockIdx.x)
#define __builtin_amdgcn_workgroup_id_y() (blockIdx.y)
#define __builtin_amdgcn_workgroup_id_z() (blockIdx.z)
#define __builtin_amdgcn_s_dcache_inv() ((void)0)
#define __builtin_amdgcn_buffer_wbinvl1() ((void)0)
