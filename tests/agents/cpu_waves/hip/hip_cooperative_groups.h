/* tests/agents/cpu_waves: the cooperative-groups calls porter's compat fixtures make themselves.
 *
 * this_thread_block (handed to porter::tiled_partition, which only needs its type), and ROCm 6.3's
 * coalesced_group as porter::labeled_partition (shims/compat/labeled_partition.h) uses it:
 * coalesced_threads() (every lane of the wave that exists: the model runs no divergent code at
 * the call), tiled_partition<N>(block), binary_partition of a coalesced_group or a tile, and the
 * group's thread_rank, size, shfl and shfl_down (ROCm/clr amd_hip_cooperative_groups.h: shfl
 * reads member srcRank % size; shfl_down the member lane_delta ranks up, or the caller's own
 * value past the last member). A group's collectives meet only its members, as on AMD, where a
 * wave's other lanes may have left the loop that calls them (a reduction over the group's own
 * size): a barrier per set of lanes, not the wave's.
 */
#pragma once
#include <hip/hip_runtime.h>

#include <condition_variable>
#include <map>
#include <mutex>

namespace porter_cpu {

struct lane_set_barrier {
  std::mutex m;
  std::condition_variable cv;
  unsigned arrived = 0;
  unsigned long long generation = 0;
};
inline std::mutex lane_sets_mutex;
inline std::map<std::pair<unsigned, unsigned long long>, std::unique_ptr<lane_set_barrier>> lane_sets;

/* A barrier of the lanes of the caller's wave named in mask (bit i = lane i; the caller among them). */
inline void sync_lanes(unsigned long long mask) {
  const unsigned wave = rank() / PORTER_CPU_WAVE;
  lane_set_barrier* b;
  {
    std::lock_guard<std::mutex> g(lane_sets_mutex);
    auto& slot = lane_sets[{wave, mask}];
    if (!slot) slot = std::make_unique<lane_set_barrier>();
    b = slot.get();
  }
  std::unique_lock<std::mutex> l(b->m);
  const unsigned long long generation = b->generation;
  if (++b->arrived == static_cast<unsigned>(__builtin_popcountll(mask))) {
    b->arrived = 0;
    ++b->generation;
    b->cv.notify_all();
  } else {
    b->cv.wait(l, [&] { return b->generation != generation; });
  }
}

/* v of lane src_lane of the caller's wave, among the lanes named in mask (src_lane one of them). */
template <class T>
T exchange_among(unsigned long long mask, T v, unsigned src_lane) {
  const unsigned me = rank(), base = me / PORTER_CPU_WAVE * PORTER_CPU_WAVE;
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  sync_lanes(mask);
  lanes[me] = bits;
  sync_lanes(mask);
  const unsigned long long got = lanes[base + src_lane];
  sync_lanes(mask);
  T r;
  std::memcpy(&r, &got, sizeof(T));
  return r;
}

inline unsigned long long ballot_among(unsigned long long mask, bool pred) {
  const unsigned me = rank(), base = me / PORTER_CPU_WAVE * PORTER_CPU_WAVE;
  sync_lanes(mask);
  lanes[me] = pred ? 1ull : 0ull;
  sync_lanes(mask);
  unsigned long long r = 0;
  for (unsigned l = 0; l < PORTER_CPU_WAVE; ++l)
    if (((mask >> l) & 1ull) && lanes[base + l]) r |= 1ull << l;
  sync_lanes(mask);
  return r;
}

/* The lanes of the caller's wave that exist (a partial last wave has fewer). */
inline unsigned long long wave_lanes() {
  const unsigned n = block_dim.x * block_dim.y * block_dim.z, base = rank() / PORTER_CPU_WAVE * PORTER_CPU_WAVE;
  const unsigned size = n - base < PORTER_CPU_WAVE ? n - base : PORTER_CPU_WAVE;
  return size >= 64 ? ~0ull : ((1ull << size) - 1ull);
}
inline unsigned lane() { return rank() % PORTER_CPU_WAVE; }

}  // namespace porter_cpu

namespace cooperative_groups {
struct thread_block {
  unsigned thread_rank() const { return porter_cpu::rank(); }
  unsigned size() const { return porter_cpu::block_dim.x * porter_cpu::block_dim.y * porter_cpu::block_dim.z; }
};
inline thread_block this_thread_block() { return {}; }

template <unsigned int Size, class Parent = void>
struct thread_block_tile {
  unsigned thread_rank() const { return porter_cpu::rank() % Size; }
  static constexpr unsigned size() { return Size; }
};
template <unsigned int Size, class Parent>
thread_block_tile<Size, Parent> tiled_partition(const Parent&) { return {}; }

class coalesced_group {
 public:
  unsigned thread_rank() const {
    return static_cast<unsigned>(__builtin_popcountll(mask_ & ((1ull << porter_cpu::lane()) - 1ull)));
  }
  unsigned size() const { return static_cast<unsigned>(__builtin_popcountll(mask_)); }
  template <class T>
  T shfl(T v, int src_rank) const {
    return porter_cpu::exchange_among(mask_, v, nth(static_cast<unsigned>(src_rank) % size()));
  }
  template <class T>
  T shfl_down(T v, unsigned delta) const {
    const unsigned r = thread_rank() + delta;
    return porter_cpu::exchange_among(mask_, v, r < size() ? nth(r) : porter_cpu::lane());
  }

 private:
  explicit coalesced_group(unsigned long long mask) : mask_(mask) {}
  unsigned nth(unsigned r) const {
    unsigned long long m = mask_;
    for (unsigned i = 0; i < r; ++i) m &= m - 1ull;
    return static_cast<unsigned>(__builtin_ctzll(m));
  }
  friend coalesced_group coalesced_threads();
  friend coalesced_group binary_partition(const coalesced_group&, bool);
  template <unsigned int S, class P>
  friend coalesced_group binary_partition(const thread_block_tile<S, P>&, bool);

  unsigned long long mask_;
};

inline coalesced_group coalesced_threads() { return coalesced_group(porter_cpu::wave_lanes()); }

inline coalesced_group binary_partition(const coalesced_group& g, bool pred) {
  const unsigned long long taken = porter_cpu::ballot_among(g.mask_, pred);
  return coalesced_group(pred ? taken : (g.mask_ ^ taken));
}
/* ROCm 6.3: the tile's aligned run of lanes (build_mask()), split by pred; here among the lanes that exist. */
template <unsigned int Size, class Parent>
coalesced_group binary_partition(const thread_block_tile<Size, Parent>&, bool pred) {
  const unsigned long long run = (Size >= 64 ? ~0ull : ((1ull << Size) - 1ull)) << (porter_cpu::lane() / Size * Size);
  const unsigned long long members = run & porter_cpu::wave_lanes();
  const unsigned long long taken = porter_cpu::ballot_among(members, pred);
  return coalesced_group(pred ? taken : (run ^ taken));
}
}  // namespace cooperative_groups
