/* tests/verify/cpu_warps: a CPU model of an NVIDIA GPU under independent thread scheduling, on
 * which shims/hip_on_cuda/hip/hip_cooperative_groups.h runs (the emulation's cooperative groups,
 * not HIP's). Built on tests/agents/cpu_waves (one std::thread per GPU thread, one block at a
 * time), it adds what that header calls:
 *   - CUDA's warp primitives with an explicit mask (porter_hoc_cuda_ballot_sync, _shfl_sync,
 *     _syncwarp, _any_sync, _all_sync: the names shims/hip_on_cuda gives them): a meeting of
 *     exactly the lanes of the caller's 32-lane warp that the mask names, as CUDA defines them
 *     ("all non-exited threads named in mask must execute the same intrinsic"); a lane named but
 *     never arriving is reported after 5 s and aborts, where a GPU would hang.
 *   - porter_hoc_cuda_activemask(): the caller's own lane only. Under independent thread
 *     scheduling __activemask() names the lanes that happen to execute together at that moment,
 *     which CUDA does not bound from below: after a branch, lanes that left it at different times
 *     are apart (what the H200 showed on 2026-12-01: binary_partition<32>.size 9 for 11 lanes).
 *     Code that is right on a GPU must be right with this answer too.
 *   - porter_hoc's wave functions (shims/hip_on_cuda/porter_hoc/wave.h's public ones: shfl,
 *     shfl_down, ballot, activemask, wave_sync, lane_id) with the AMD semantics wave.h documents,
 *     under its contract that every live lane of the wave calls them together: here every lane
 *     of the wave that exists.
 * Not an NVIDIA GPU: nothing else is modelled.
 */
#pragma once
#include "../../../agents/cpu_waves/hip/hip_runtime.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>

#define PORTER_HOC_WAVE_SIZE 64

namespace porter_cpu {
struct warp_meeting {
  std::mutex m;
  std::condition_variable cv;
  unsigned arrived = 0;
  unsigned long long generation = 0;
  unsigned long long words[2][32] = {};  // by generation parity: the next meeting needs every lane back
};
inline std::mutex meetings_mutex;
inline std::map<std::pair<unsigned, unsigned>, std::unique_ptr<warp_meeting>> meetings;

/* The lanes of the caller's warp named in mask (warp lane bits) meet; each brings a word and
 * leaves with every one of them. */
inline void meet(unsigned mask, unsigned long long word, unsigned long long (&out)[32]) {
  const unsigned me = rank(), warp = me / 32, lane = me % 32;
  if (!((mask >> lane) & 1u)) {
    std::fprintf(stderr, "cpu_warps: warp %u lane %u calls a *_sync whose mask 0x%x does not name it\n", warp, lane, mask);
    std::abort();
  }
  warp_meeting* w;
  {
    std::lock_guard<std::mutex> g(meetings_mutex);
    auto& slot = meetings[{warp, mask}];
    if (!slot) slot = std::make_unique<warp_meeting>();
    w = slot.get();
  }
  std::unique_lock<std::mutex> l(w->m);
  const unsigned long long generation = w->generation;
  unsigned long long(&words)[32] = w->words[generation & 1u];
  words[lane] = word;
  if (++w->arrived == static_cast<unsigned>(__builtin_popcount(mask))) {
    std::memcpy(out, words, sizeof(out));
    w->arrived = 0;
    ++w->generation;
    w->cv.notify_all();
    return;
  }
  if (!w->cv.wait_for(l, std::chrono::seconds(5), [&] { return w->generation != generation; })) {
    std::fprintf(stderr, "cpu_warps: warp %u lane %u waited 5 s for the lanes of mask 0x%x\n", warp, lane, mask);
    std::abort();
  }
  std::memcpy(out, words, sizeof(out));
}
}  // namespace porter_cpu

inline unsigned porter_hoc_cuda_activemask() { return 1u << (porter_cpu::rank() % 32); }
inline unsigned porter_hoc_cuda_ballot_sync(unsigned mask, int pred) {
  unsigned long long words[32];
  porter_cpu::meet(mask, pred ? 1ull : 0ull, words);
  unsigned r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((mask >> l) & 1u) && words[l]) r |= 1u << l;
  return r;
}
inline void porter_hoc_cuda_syncwarp(unsigned mask) { (void)porter_hoc_cuda_ballot_sync(mask, 0); }
inline int porter_hoc_cuda_any_sync(unsigned mask, int pred) { return porter_hoc_cuda_ballot_sync(mask, pred) != 0u; }
inline int porter_hoc_cuda_all_sync(unsigned mask, int pred) { return porter_hoc_cuda_ballot_sync(mask, pred) == mask; }
inline unsigned porter_hoc_cuda_shfl_sync(unsigned mask, unsigned v, int src, int width) {
  unsigned long long words[32];
  porter_cpu::meet(mask, v, words);
  const unsigned lane = porter_cpu::rank() % 32, w = static_cast<unsigned>(width);
  return static_cast<unsigned>(words[lane / w * w + static_cast<unsigned>(src) % w]);
}

inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline int __popcll(unsigned long long m) { return __builtin_popcountll(m); }
inline int __ffsll(unsigned long long m) { return __builtin_ffsll(static_cast<long long>(m)); }
inline int __clzll(unsigned long long m) { return m ? __builtin_clzll(m) : 64; }
[[noreturn]] inline void __trap() { std::abort(); }

namespace porter_hoc {
constexpr unsigned kWaveLanes = 64;
inline unsigned lane_id() { return porter_cpu::rank() % kWaveLanes; }
template <class T>
inline unsigned long long to_bits(const T& v) {
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
template <class T>
T shfl(T v, int src, int width = 64) { return ::__shfl(v, src, width); }
template <class T>
T shfl_down(T v, unsigned d, int width = 64) { return ::__shfl_down(v, d, width); }
template <class T>
T shfl_up(T v, unsigned d, int width = 64) { return ::__shfl_up(v, d, width); }
template <class T>
T shfl_xor(T v, int m, int width = 64) { return ::__shfl_xor(v, m, width); }
inline unsigned long long ballot(int pred) {
  const unsigned me = porter_cpu::rank(), base = me / kWaveLanes * kWaveLanes;
  const unsigned n = porter_cpu::block_dim.x * porter_cpu::block_dim.y * porter_cpu::block_dim.z;
  porter_cpu::wave_sync();
  porter_cpu::lanes[me] = pred ? 1ull : 0ull;
  porter_cpu::wave_sync();
  unsigned long long r = 0;
  for (unsigned l = 0; l < kWaveLanes && base + l < n; ++l)
    if (porter_cpu::lanes[base + l]) r |= 1ull << l;
  porter_cpu::wave_sync();
  return r;
}
inline unsigned long long activemask() { return ballot(1); }
inline int any(int pred) { return ballot(pred) != 0ull; }
inline int all(int pred) { return ballot(pred) == activemask(); }
inline void wave_sync() { porter_cpu::wave_sync(); }
}  // namespace porter_hoc
