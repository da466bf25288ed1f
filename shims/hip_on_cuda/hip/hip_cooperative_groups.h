/* porter hip_on_cuda: <hip/hip_cooperative_groups.h>, the subset HIP ports use.
 *
 * Stands in for: ROCm's hip_cooperative_groups.h (amd_hip_cooperative_groups.h, ROCm 6.3),
 * written from HIP's documentation ("Cooperative groups" in the HIP programming guide and
 * API reference) and the behaviour of its thread_block_tile, whose cross-lane members are
 * HIP's cross-lane functions with width = the tile size:
 *   tile.shfl(v, r)        __shfl(v, r, N): rank r % N of the caller's tile
 *   tile.shfl_down(v, d)   __shfl_down(v, d, N): rank + d, or the caller's own value past the tile
 *   tile.shfl_up(v, d)     __shfl_up(v, d, N): rank - d, or the caller's own value below the tile
 *   tile.shfl_xor(v, m)    __shfl_xor(v, m, N)
 *   tile.ballot(p)         64-bit; bit i = tile rank i (HIP compacts the wave ballot to the tile)
 *   tile.any(p), all(p)    over the tile's active lanes
 *   tile.sync()            a barrier of the tile's lanes that orders their memory accesses
 * A tile is N consecutive linear thread ids (N a power of two, 1..64), aligned to N: rank =
 * linear id % N, inside one 64-lane wave as on gfx950. A read from an inactive (exited) lane
 * gives 0, as HIP's ds_bpermute-based shuffles do (porter_hoc/wave.h).
 *
 * How, on the emulated waves of porter_hoc/wave.h:
 *   - N = 64 is a whole emulated wave: the members are porter_hoc's wave64 functions (an
 *     exchange between the wave's two NVIDIA warps), under wave.h's contract - every live lane
 *     of the wave calls together.
 *   - N <= 32: a tile never spans two NVIDIA warps (lane = linear id % 64, warps split at 32),
 *     so the members are CUDA's own warp primitives over the tile's live lanes - exact, with no
 *     shared memory; every live lane of the *tile* calls together (as for __shfl_sync).
 *     tile.shfl_xor with a lane mask that leaves the NVIDIA warp (bit 5 set, possible in HIP
 *     only for masks >= N, which read outside the tile) traps with a message.
 *   - thread_block: __syncthreads, threadIdx/blockIdx/blockDim.
 *
 * Provided: this_thread_block(); thread_block {sync, thread_rank, size, num_threads,
 * group_index, thread_index, group_dim, dim_threads, is_valid}; tiled_partition<N>(block or
 * tile); thread_block_tile<N[, Parent]> {thread_rank, size, num_threads, meta_group_rank,
 * meta_group_size, sync, shfl, shfl_down, shfl_up, shfl_xor, ballot, any, all, is_valid};
 * group_size(g), thread_rank(g), sync(g), is_valid(g).
 * thread_group: a group of either kind chosen at run time (constructed from a thread_block or
 * a thread_block_tile) with thread_rank, size, num_threads, sync, is_valid.
 * coalesced_group (AMD semantics, ROCm 6.3): coalesced_threads() is the wave's active lanes
 * at the call (a 64-bit lane mask, as __activemask()); thread_rank() counts the members below
 * the caller's lane, size() the members; shfl(v, r) reads member r % size(); shfl_down(v, d) /
 * shfl_up(v, d) the member d places above / below the caller, or the caller's own value when
 * there is none; ballot(p) has bit i for member rank i; any, all over the members; sync();
 * meta_group_rank() 0, meta_group_size() 1; binary_partition(group or tile, pred) (ROCm 6.3)
 * the coalesced group of the members with the caller's pred. A group whose members all lie in
 * the caller's 32-lane half (its NVIDIA warp) moves data with CUDA's warp primitives and waits
 * for nobody; a group with members in both halves uses the wave collectives of
 * porter_hoc/wave.h, under its contract (both halves' members call together).
 * grid_group / this_grid(): thread_rank, size, num_threads, group_dim, is_valid.
 * Not provided (fails to compile, the intended signal): the run-time
 * tiled_partition(g, n), labeled_partition (CUDA-only; porter's is porter::labeled_partition,
 * HIP017), grid_group::sync() (cooperative launch), multi_grid_group, match_any/match_all, cg::reduce (CUDA-only; porter
 * expands it, WAVE009), memcpy_async.
 */
#pragma once

#include <hip/hip_runtime.h>

namespace porter_hoc {
namespace cg {

__device__ inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

template <unsigned N>
struct is_tile_size {
  static constexpr bool value = N >= 1 && N <= kWaveLanes && (N & (N - 1)) == 0;
};

/* A tile of N <= 32 lanes: lanes [base, base + N) of the caller's NVIDIA warp. */
template <unsigned N>
struct warp_tile {
  static constexpr unsigned kBits = N == 32 ? 0xffffffffu : ((1u << N) - 1u);

  __device__ static unsigned warp_lane() { return block_rank() % 32u; }
  __device__ static unsigned base() { return warp_lane() & ~(N - 1u); }
  /* The tile's lanes that exist (the last warp of a block may be partial). */
  __device__ static unsigned lanes() {
    const unsigned warp_first = block_rank() & ~31u;
    const unsigned in_warp = min(32u, block_threads() - warp_first);
    const unsigned exist = in_warp == 32u ? 0xffffffffu : ((1u << in_warp) - 1u);
    return (kBits << base()) & exist;
  }
  /* The tile's lanes that have not exited (a ballot over existing lanes does not wait for
   * exited ones; see porter_hoc/wave.h). */
  __device__ static unsigned live() { return porter_hoc_cuda_ballot_sync(lanes(), 1); }

  /* var of warp lane `src` (0..31) of this warp; 0 when that lane is not live. */
  template <class T>
  __device__ static T read(T var, unsigned src) {
    const unsigned mask = live();
    const unsigned long long bits = to_bits(var);
    unsigned long long got = porter_hoc_cuda_shfl_sync(mask, static_cast<unsigned>(bits), static_cast<int>(src), 32);
    if (sizeof(T) > 4)
      got |= static_cast<unsigned long long>(porter_hoc_cuda_shfl_sync(mask, static_cast<unsigned>(bits >> 32), static_cast<int>(src), 32)) << 32;
    return ((mask >> src) & 1u) ? from_bits<T>(got) : from_bits<T>(0ull);
  }

  template <class T>
  __device__ static T shfl(T var, int src_rank) {
    return read(var, base() + (static_cast<unsigned>(src_rank) & (N - 1u)));
  }
  template <class T>
  __device__ static T shfl_down(T var, unsigned delta) {
    const unsigned self = warp_lane();
    return read(var, ((self & (N - 1u)) + delta >= N) ? self : self + delta);
  }
  template <class T>
  __device__ static T shfl_up(T var, unsigned delta) {
    const unsigned self = warp_lane();
    return read(var, ((self & (N - 1u)) < delta) ? self : self - delta);
  }
  template <class T>
  __device__ static T shfl_xor(T var, unsigned lane_mask) {
    // HIP: index = self ^ mask in wave lanes; an index at or past the end of the caller's
    // segment reads the caller's own value; anything else is read (mod 64).
    const unsigned self = lane_id();
    unsigned src = self ^ lane_mask;
    if (src >= ((self + N) & ~(N - 1u))) src = self;
    src %= kWaveLanes;
    if ((src / 32u) != (self / 32u)) {
      printf("porter hip_on_cuda: thread_block_tile<%u>::shfl_xor(v, %u) reads lane %u of the other "
             "half of the wave; only masks < 32 are emulated for tiles of <= 32 lanes\n", N, lane_mask, src);
      __trap();
    }
    return read(var, src % 32u);
  }
  __device__ static unsigned long long ballot(int pred) {
    return (porter_hoc_cuda_ballot_sync(live(), pred) >> base()) & kBits;
  }
  __device__ static int any(int pred) { return porter_hoc_cuda_any_sync(live(), pred); }
  __device__ static int all(int pred) { return porter_hoc_cuda_all_sync(live(), pred); }
  __device__ static void sync() { porter_hoc_cuda_syncwarp(live()); }
};

/* A tile of 64 lanes: the caller's whole (emulated) wave. */
struct wave_tile {
  template <class T>
  __device__ static T shfl(T var, int src_rank) { return ::porter_hoc::shfl(var, src_rank, 64); }
  template <class T>
  __device__ static T shfl_down(T var, unsigned delta) { return ::porter_hoc::shfl_down(var, delta, 64); }
  template <class T>
  __device__ static T shfl_up(T var, unsigned delta) { return ::porter_hoc::shfl_up(var, delta, 64); }
  template <class T>
  __device__ static T shfl_xor(T var, unsigned lane_mask) {
    return ::porter_hoc::shfl_xor(var, static_cast<int>(lane_mask), 64);
  }
  __device__ static unsigned long long ballot(int pred) { return ::porter_hoc::ballot(pred); }
  __device__ static int any(int pred) { return ::porter_hoc::any(pred); }
  __device__ static int all(int pred) { return ::porter_hoc::all(pred); }
  __device__ static void sync() { ::porter_hoc::wave_sync(); }
};

template <unsigned N>
struct tile_ops_of {
  typedef warp_tile<N> type;
};
template <>
struct tile_ops_of<64> {
  typedef wave_tile type;
};

}  // namespace cg
}  // namespace porter_hoc

namespace cooperative_groups {

class thread_block;
__device__ inline thread_block this_thread_block();

/* The calling thread's block. */
class thread_block {
 public:
  __device__ static void sync() { __syncthreads(); }
  __device__ static unsigned thread_rank() { return ::porter_hoc::cg::block_rank(); }
  __device__ static unsigned size() { return ::porter_hoc::cg::block_threads(); }
  __device__ static unsigned num_threads() { return ::porter_hoc::cg::block_threads(); }
  __device__ static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ static dim3 dim_threads() { return group_dim(); }
  __device__ static bool is_valid() { return true; }

 private:
  __device__ thread_block() {}
  friend __device__ thread_block this_thread_block();
};

__device__ inline thread_block this_thread_block() { return thread_block(); }

template <unsigned int Size, class ParentCGTy = void>
class thread_block_tile;

namespace porter_detail {
template <unsigned N>
class tile_impl {
  static_assert(::porter_hoc::cg::is_tile_size<N>::value,
                "Tile size is either not a power of 2 or greater than the wavefront size");
  typedef typename ::porter_hoc::cg::tile_ops_of<N>::type ops;

 public:
  __device__ static unsigned thread_rank() { return ::porter_hoc::cg::block_rank() & (N - 1u); }
  __device__ static constexpr unsigned size() { return N; }
  __device__ static constexpr unsigned num_threads() { return N; }
  __device__ unsigned meta_group_rank() const { return meta_rank_; }
  __device__ unsigned meta_group_size() const { return meta_size_; }
  __device__ static bool is_valid() { return true; }

  __device__ static void sync() { ops::sync(); }
  template <class T>
  __device__ T shfl(T var, int src_rank) const { return ops::shfl(var, src_rank); }
  template <class T>
  __device__ T shfl_down(T var, unsigned int lane_delta) const { return ops::shfl_down(var, lane_delta); }
  template <class T>
  __device__ T shfl_up(T var, unsigned int lane_delta) const { return ops::shfl_up(var, lane_delta); }
  template <class T>
  __device__ T shfl_xor(T var, unsigned int lane_mask) const { return ops::shfl_xor(var, lane_mask); }
  __device__ unsigned long long ballot(int pred) const { return ops::ballot(pred); }
  __device__ int any(int pred) const { return ops::any(pred); }
  __device__ int all(int pred) const { return ops::all(pred); }

 protected:
  /* parent_rank / parent_size: the caller's rank in, and the size of, the partitioned group. */
  __device__ tile_impl(unsigned parent_rank, unsigned parent_size)
      : meta_rank_(parent_rank / N), meta_size_((parent_size + N - 1u) / N) {}

 private:
  unsigned meta_rank_, meta_size_;
};
}  // namespace porter_detail

/* A tile of Size consecutive threads of a thread_block (or of a larger tile). */
template <unsigned int Size, class ParentCGTy>
class thread_block_tile : public porter_detail::tile_impl<Size> {
 public:
  /* A tile with a known parent type converts to the parent-less thread_block_tile<Size>. */
  template <class P>
  __device__ thread_block_tile(const thread_block_tile<Size, P>& other) : porter_detail::tile_impl<Size>(other) {}

 private:
  __device__ thread_block_tile(unsigned parent_rank, unsigned parent_size)
      : porter_detail::tile_impl<Size>(parent_rank, parent_size) {}
  template <unsigned int S, class P>
  friend class thread_block_tile;
  template <unsigned int S, class P>
  friend __device__ thread_block_tile<S, P> tiled_partition(const P& parent);
};

/* Partitions `parent` (a thread_block or a thread_block_tile of at least Size threads) into
 * tiles of Size consecutive threads. */
template <unsigned int Size, class ParentCGTy>
__device__ inline thread_block_tile<Size, ParentCGTy> tiled_partition(const ParentCGTy& parent) {
  static_assert(::porter_hoc::cg::is_tile_size<Size>::value,
                "Tile size is either not a power of 2 or greater than the wavefront size");
  return thread_block_tile<Size, ParentCGTy>(parent.thread_rank(), parent.size());
}

/* A thread_block or a tile, chosen at run time (HIP's base class of both). */
class thread_group {
 public:
  __device__ thread_group(const thread_block&) : tile_(0) {}
  template <unsigned int Size, class P>
  __device__ thread_group(const thread_block_tile<Size, P>&) : tile_(Size) {}

  __device__ unsigned thread_rank() const {
    return tile_ == 0 ? ::porter_hoc::cg::block_rank() : ::porter_hoc::cg::block_rank() & (tile_ - 1u);
  }
  __device__ unsigned size() const { return tile_ == 0 ? ::porter_hoc::cg::block_threads() : tile_; }
  __device__ unsigned num_threads() const { return size(); }
  __device__ bool is_valid() const { return true; }
  __device__ void sync() const {
    switch (tile_) {
      case 0: __syncthreads(); break;
      case 1: break;
      case 2: ::porter_hoc::cg::tile_ops_of<2>::type::sync(); break;
      case 4: ::porter_hoc::cg::tile_ops_of<4>::type::sync(); break;
      case 8: ::porter_hoc::cg::tile_ops_of<8>::type::sync(); break;
      case 16: ::porter_hoc::cg::tile_ops_of<16>::type::sync(); break;
      case 32: ::porter_hoc::cg::tile_ops_of<32>::type::sync(); break;
      default: ::porter_hoc::cg::tile_ops_of<64>::type::sync(); break;
    }
  }

 private:
  unsigned tile_;  // 0: the whole block; else the tile size
};

/* The lanes of the caller's wave that are active at the call, as a group (see the top).
 *
 * NVIDIA's independent thread scheduling does not reconverge a warp after a branch by itself:
 * lanes that left an `if` at different times reach the next collective apart, and
 * __activemask() there names only those that arrived together (on AMD the wave runs in
 * lockstep and EXEC is whole again). So every member first reconverges the group's live lanes
 * of the caller's warp (a __ballot_sync over the members that exist, which exited lanes do not
 * block, then __syncwarp) before it moves data: the members call their group's collectives
 * together (CUDA's and HIP's rule), and only they, so a group of a labeled or binary partition
 * whose loop ends earlier than its neighbour's (a reduction over its own size) waits for nobody
 * outside it. binary_partition reconverges the parent's members (a tile: its lanes that exist).
 * The H200 run of 2026-12-01 (coalesced_group fixture) read __activemask() instead:
 * binary_partition<32>.size 9 where 11 lanes took the side. */
class coalesced_group {
 public:
  __device__ unsigned thread_rank() const {
    const unsigned lane = ::porter_hoc::lane_id();
    return static_cast<unsigned>(__popcll(mask_ & ((1ull << lane) - 1ull)));
  }
  __device__ unsigned size() const { return static_cast<unsigned>(__popcll(mask_)); }
  __device__ unsigned num_threads() const { return size(); }
  __device__ unsigned meta_group_rank() const { return 0u; }
  __device__ unsigned meta_group_size() const { return 1u; }
  __device__ bool is_valid() const { return mask_ != 0ull; }

  __device__ void sync() const {
    const unsigned live = converge();
    if (!in_one_half()) ::porter_hoc::wave_sync();
    else porter_hoc_cuda_syncwarp(live);
  }
  template <class T>
  __device__ T shfl(T var, int src_rank) const {
    const unsigned n = size();
    return read(var, nth_member(static_cast<unsigned>(src_rank) % (n ? n : 1u)));
  }
  template <class T>
  __device__ T shfl_down(T var, unsigned int lane_delta) const {
    const unsigned lane = ::porter_hoc::lane_id();
    unsigned long long above = lane == 63u ? 0ull : (mask_ & ~((2ull << lane) - 1ull));
    for (unsigned i = 1; i < lane_delta && above; ++i) above &= above - 1ull;  // drop the nearest
    return read(var, (lane_delta == 0u || !above) ? lane : static_cast<unsigned>(__ffsll(above) - 1));
  }
  template <class T>
  __device__ T shfl_up(T var, unsigned int lane_delta) const {
    const unsigned lane = ::porter_hoc::lane_id();
    unsigned long long below = mask_ & ((1ull << lane) - 1ull);
    for (unsigned i = 1; i < lane_delta && below; ++i) below &= ~(1ull << (63 - __clzll(below)));
    return read(var, (lane_delta == 0u || !below) ? lane : static_cast<unsigned>(63 - __clzll(below)));
  }
  __device__ unsigned long long ballot(int pred) const {
    const unsigned long long votes = wave_ballot(pred) & mask_;
    unsigned long long out = 0ull;  // bit i for member rank i
    unsigned rank = 0;
    for (unsigned long long m = mask_; m; m &= m - 1ull, ++rank)
      if (votes & (m & (~m + 1ull))) out |= 1ull << rank;
    return out;
  }
  __device__ int any(int pred) const { return (wave_ballot(pred) & mask_) != 0ull; }
  __device__ int all(int pred) const { return (wave_ballot(pred) & mask_) == mask_; }

 private:
  __device__ explicit coalesced_group(unsigned long long mask) : mask_(mask) {}
  friend __device__ coalesced_group coalesced_threads();
  friend __device__ coalesced_group binary_partition(const coalesced_group&, bool);
  template <unsigned int S, class P>
  friend __device__ coalesced_group binary_partition(const thread_block_tile<S, P>&, bool);

  __device__ static unsigned long long half_of_caller() {
    return (::porter_hoc::lane_id() < 32u) ? 0x00000000ffffffffull : 0xffffffff00000000ull;
  }
  __device__ bool in_one_half() const { return (mask_ & ~half_of_caller()) == 0ull; }
  /* The members of the caller's warp that exist, as a mask of its NVIDIA warp's lanes. */
  __device__ unsigned half_bits() const {
    const unsigned mine = static_cast<unsigned>(::porter_hoc::lane_id() < 32u ? mask_ : (mask_ >> 32));
    return mine & ::porter_hoc::cg::warp_tile<32>::lanes();
  }
  /* Reconverges the live members of the caller's warp; returns them (warp lane bits). */
  __device__ unsigned converge() const {
    const unsigned live = porter_hoc_cuda_ballot_sync(half_bits(), 1);
    porter_hoc_cuda_syncwarp(live);
    return live;
  }
  __device__ unsigned nth_member(unsigned r) const {
    unsigned long long m = mask_;
    for (unsigned i = 0; i < r && m; ++i) m &= m - 1ull;
    return m ? static_cast<unsigned>(__ffsll(m) - 1) : ::porter_hoc::lane_id();
  }
  /* var of wave lane `src` (a member, or the caller itself); 0 from a lane that is not live. */
  template <class T>
  __device__ T read(T var, unsigned src) const {
    const unsigned live = converge();
    if (!in_one_half()) return ::porter_hoc::shfl(var, static_cast<int>(src), 64);
    const unsigned long long bits = ::porter_hoc::to_bits(var);
    const int s32 = static_cast<int>(src % 32u);
    unsigned long long got = porter_hoc_cuda_shfl_sync(live, static_cast<unsigned>(bits), s32, 32);
    if (sizeof(T) > 4)
      got |= static_cast<unsigned long long>(porter_hoc_cuda_shfl_sync(live, static_cast<unsigned>(bits >> 32), s32, 32)) << 32;
    if (src == ::porter_hoc::lane_id()) return var;
    return ((live >> s32) & 1u) ? ::porter_hoc::from_bits<T>(got) : ::porter_hoc::from_bits<T>(0ull);
  }
  /* The wave ballot over the live members (bit i = lane i). */
  __device__ unsigned long long wave_ballot(int pred) const {
    const unsigned live = converge();
    if (!in_one_half()) return ::porter_hoc::ballot(pred);
    const unsigned long long mine = porter_hoc_cuda_ballot_sync(live, pred);
    return ::porter_hoc::lane_id() < 32u ? mine : (mine << 32);
  }

  unsigned long long mask_;  // bit i: lane i of the wave is a member
};

/* The wave's active lanes (AMD: EXEC) at the call. */
__device__ inline coalesced_group coalesced_threads() {
  return coalesced_group(::porter_hoc::activemask());
}

/* ROCm 6.3: the members whose pred equals the caller's. Every member of g calls. */
__device__ inline coalesced_group binary_partition(const coalesced_group& g, bool pred) {
  const unsigned long long taken = g.wave_ballot(pred) & g.mask_;
  return coalesced_group(pred ? taken : (g.mask_ ^ taken));
}
/* ROCm 6.3 splits the tile's aligned run of lanes (tile.build_mask(), existing or not): the side
 * of pred false is that run less the lanes whose pred is true. Every lane of the tile calls. */
template <unsigned int Size, class P>
__device__ inline coalesced_group binary_partition(const thread_block_tile<Size, P>&, bool pred) {
  const unsigned lane = ::porter_hoc::lane_id();
  const unsigned long long run = (Size >= 64u ? ~0ull : ((1ull << Size) - 1ull)) << ((lane / Size) * Size);
  const coalesced_group tile(run);
  const unsigned long long taken = tile.wave_ballot(pred) & run;
  return coalesced_group(pred ? taken : (run ^ taken));
}

/* The grid of the launch (ROCm 6.3 grid_group): rank and size over every thread of the grid.
 * sync() is not provided: it needs a cooperative launch (hipLaunchCooperativeKernel), which
 * this emulation does not make, so a port that calls it fails to compile. */
class grid_group {
 public:
  __device__ unsigned long long thread_rank() const {
    const unsigned long long block = blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                                                      (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    return block * ::porter_hoc::cg::block_threads() + ::porter_hoc::cg::block_rank();
  }
  __device__ unsigned long long size() const {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z * ::porter_hoc::cg::block_threads();
  }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ bool is_valid() const { return true; }

 private:
  __device__ grid_group() {}
  friend __device__ grid_group this_grid();
};

__device__ inline grid_group this_grid() { return grid_group(); }

template <class CGTy>
__device__ inline unsigned group_size(const CGTy& g) { return g.size(); }
template <class CGTy>
__device__ inline unsigned thread_rank(const CGTy& g) { return g.thread_rank(); }
template <class CGTy>
__device__ inline bool is_valid(const CGTy& g) { return g.is_valid(); }
template <class CGTy>
__device__ inline void sync(const CGTy& g) { g.sync(); }

}  // namespace cooperative_groups
