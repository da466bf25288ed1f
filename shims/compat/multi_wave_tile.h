// porter compat: cooperative-groups tiles wider than one wavefront (CUDA 11's multi-warp tiles),
// written by HIP015 and pulled in by SHIM040.
//
// CUDA cuts `tiled_partition<N>(block)` tiles of 64..1024 threads; before compute capability 8.0
// the kernel hands `this_thread_block` a `__shared__ cg::block_tile_memory<MaxBlock>` scratch for
// them. Such a tile has thread_rank, size / num_threads, meta_group_rank, meta_group_size and
// sync, and cg::reduce over it; no shuffles or votes (CUDA C++ Programming Guide, "Cooperative
// Groups: Thread Block Tile"). HIP's tiles stop at one wavefront (ROCm 6.3 is_valid_tile_size),
// so HIP015 writes porter's instead, which has those members, and shfl, shfl_down, shfl_up and
// shfl_xor (HIP's, width N) in an instantiation whose N is at most one wavefront:
//
//   __shared__ porter::tile_scratch<MaxBlock> s;        // for cg::block_tile_memory<MaxBlock> s
//   auto t = porter::tiled_partition<N>(block, s);      // for cg::tiled_partition<N>(block)
//   v = porter::reduce(t, v, porter::plus<T>());        // for cg::reduce(t, v, cg::plus<T>())
//
// A tile is N consecutive linear thread ids of the block (N a power of two), aligned to N, as in
// CUDA. The wavefront width W comes from the compile target (__AMDGCN_WAVEFRONT_SIZE, which
// porter's gfx950 overlay and hip_on_cuda define, else HIP's warpSize).
//   - N <= W: the tile lies inside one wave; reduce is a butterfly of __shfl_xor over width N and
//     sync a wave barrier plus an LDS fence.
//   - N > W: the tile is N / W whole waves. sync() is a barrier of the tile's threads alone, on
//     an arrival counter and a generation word per tile in the scratch (LDS): each thread reads
//     the generation, adds one to the counter, the thread that completes it resets the counter
//     and bumps the generation (release), and every thread then waits for the generation to move
//     (acquire). Tiles of each size have their own words (a kernel may cut tiles of 128 and of
//     256 threads from one scratch and sync them independently). The waves of a workgroup are
//     co-resident, so a wave that waits for the others of its tile cannot keep them from
//     running; the wait sits after the branch that bumps, so the lanes of a wave that share it
//     are never split across it. reduce() reduces each wave
//     with __shfl_xor over W, puts one partial a wave in the scratch, syncs the tile, combines
//     the tile's partials in wave order (every thread, the same order: the same value), and
//     syncs again before the partials may be overwritten.
//   Every thread of the tile calls reduce() and sync() together (CUDA asks the same), and the
//   block's threads are a multiple of N, which a multi-warp tile needs in CUDA too.
// porter::tiled_partition<N> is a collective of the whole block (as CUDA's is): it zeroes the
// tile counters and ends with __syncthreads().
//
// porter::reduce on any other group (a HIP thread_block_tile or coalesced_group, e.g. through a
// helper templated on the group that is also called with a multi-wave tile) is WAVE009's shuffle
// tree: shfl_down over the group's size (rounded up to a power of two, combining only ranks that
// exist), broadcast from its rank 0.
// plus, less, greater, bit_and, bit_or, bit_xor are CUDA's cg functors (less and greater return
// the smaller / larger operand); HIP has none.
// A partial is at most 16 bytes (static_assert): the reduced types are scalars.

namespace porter {

#if defined(__AMDGCN_WAVEFRONT_SIZE)
constexpr unsigned tile_wave_lanes = __AMDGCN_WAVEFRONT_SIZE;
#else
constexpr unsigned tile_wave_lanes = warpSize;
#endif
constexpr unsigned tile_partial_bytes = 16;

struct tile_barrier_word {
  unsigned arrived;
  unsigned generation;
};

// Takes the place of cg::block_tile_memory<MaxBlock>: one partial a wave of the largest block the
// kernel runs with (CUDA's default for block_tile_memory<>: 1024 threads), and one barrier word a
// tile of each multi-wave size: tiles of W * 2^k threads (k >= 1) use the ceil(waves / 2^k) words
// from level_offset(k) on, which sum to less than 2 * waves + 1.
template <unsigned MaxBlock = 1024>
struct tile_scratch {
  static constexpr unsigned waves = (MaxBlock + tile_wave_lanes - 1) / tile_wave_lanes;
  static constexpr unsigned barriers = 2 * waves + 1;
  __host__ __device__ static constexpr unsigned level_offset(unsigned k) {
    unsigned at = 0;
    for (unsigned j = 1; j < k; ++j) at += (waves + (1u << j) - 1) >> j;
    return at;
  }
  tile_barrier_word barrier[barriers];
  alignas(16) unsigned char partial[waves * tile_partial_bytes];
};

namespace tile_detail {
__device__ inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace tile_detail

template <unsigned N>
class multi_wave_tile {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "porter::multi_wave_tile: the tile size is a power of two");

 public:
  __device__ multi_wave_tile(tile_barrier_word* barrier, unsigned char* partial)
      : barrier_(barrier), partial_(partial) {}

  __device__ static constexpr unsigned size() { return N; }
  __device__ static constexpr unsigned num_threads() { return N; }
  __device__ unsigned thread_rank() const { return tile_detail::block_rank() % N; }
  __device__ unsigned meta_group_rank() const { return tile_detail::block_rank() / N; }
  __device__ unsigned meta_group_size() const { return (tile_detail::block_threads() + N - 1) / N; }
  __device__ bool is_valid() const { return true; }

  __device__ void sync() const {
    if constexpr (N <= tile_wave_lanes) {
      __threadfence_block();
      __builtin_amdgcn_wave_barrier();  // hip_on_cuda: porter_hoc/amdgcn.h, a barrier of the emulated wave
    } else {
      tile_barrier_word* b = barrier_ + meta_group_rank();
      const unsigned seen = __hip_atomic_load(&b->generation, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
      const unsigned before = __hip_atomic_fetch_add(&b->arrived, 1u, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_WORKGROUP);
      if (before == N - 1) {
        __hip_atomic_store(&b->arrived, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
        __hip_atomic_fetch_add(&b->generation, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
      }
      while (__hip_atomic_load(&b->generation, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == seen) {
        __builtin_amdgcn_s_sleep(1);  // yield issue slots to the waves being waited for
      }
    }
  }

  // Shuffles as HIP's thread_block_tile has them (width = N), for a tile of one wavefront or less:
  // CUDA gives a multi-warp tile none, so code that shuffles on this tile has N <= a warp in CUDA.
  template <class T>
  __device__ T shfl(T v, int src) const {
    static_assert(N <= tile_wave_lanes, "porter::multi_wave_tile: no shuffles on a tile wider than a wavefront");
    return __shfl(v, src, static_cast<int>(N));
  }
  template <class T>
  __device__ T shfl_down(T v, unsigned d) const {
    static_assert(N <= tile_wave_lanes, "porter::multi_wave_tile: no shuffles on a tile wider than a wavefront");
    return __shfl_down(v, d, static_cast<int>(N));
  }
  template <class T>
  __device__ T shfl_up(T v, unsigned d) const {
    static_assert(N <= tile_wave_lanes, "porter::multi_wave_tile: no shuffles on a tile wider than a wavefront");
    return __shfl_up(v, d, static_cast<int>(N));
  }
  template <class T>
  __device__ T shfl_xor(T v, int m) const {
    static_assert(N <= tile_wave_lanes, "porter::multi_wave_tile: no shuffles on a tile wider than a wavefront");
    return __shfl_xor(v, m, static_cast<int>(N));
  }

  // The partial of the caller's wave (slot = wave index in the block).
  template <class T>
  __device__ T* partial(unsigned wave) const {
    return reinterpret_cast<T*>(partial_ + wave * tile_partial_bytes);
  }

 private:
  tile_barrier_word* barrier_;
  unsigned char* partial_;
};

// cg::tiled_partition<N>(block) for a tile that may be wider than a wavefront. Every thread of
// the block calls it (a collective of the block, as in CUDA).
template <unsigned N, class Parent, unsigned MaxBlock>
__device__ multi_wave_tile<N> tiled_partition(const Parent&, tile_scratch<MaxBlock>& scratch) {
  using S = tile_scratch<MaxBlock>;
  for (unsigned i = tile_detail::block_rank(); i < S::barriers; i += tile_detail::block_threads()) {
    scratch.barrier[i].arrived = 0u;
    scratch.barrier[i].generation = 0u;
  }
  __syncthreads();
  unsigned level = 0;  // N = W * 2^level for a multi-wave tile
  for (unsigned w = tile_wave_lanes; w < N; w *= 2) ++level;
  return multi_wave_tile<N>(scratch.barrier + (level ? S::level_offset(level) : 0u), scratch.partial);
}

template <class T>
struct plus {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {
  __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  __host__ __device__ T operator()(const T& a, const T& b) const { return b > a ? b : a; }
};
template <class T>
struct bit_and {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace tile_detail {
// Butterfly over `width` lanes (a power of two, at most one wave): every lane gets the result.
template <class T, class Op>
__device__ T butterfly(T v, Op op, unsigned width) {
  for (unsigned m = width / 2; m > 0; m /= 2) v = op(v, __shfl_xor(v, static_cast<int>(m), static_cast<int>(width)));
  return v;
}
}  // namespace tile_detail

// cg::reduce over a multi-wave tile: every thread of the tile gets op over the tile's values.
template <unsigned N, class T, class Op>
__device__ T reduce(const multi_wave_tile<N>& tile, T v, Op op) {
  if constexpr (N <= tile_wave_lanes) {
    return tile_detail::butterfly(v, op, N);
  } else {
    static_assert(sizeof(T) <= tile_partial_bytes, "porter::reduce: a partial is at most 16 bytes");
    constexpr unsigned waves = N / tile_wave_lanes;
    const unsigned rank = tile_detail::block_rank();
    const unsigned wave = rank / tile_wave_lanes;
    v = tile_detail::butterfly(v, op, tile_wave_lanes);
    if (rank % tile_wave_lanes == 0) *tile.template partial<T>(wave) = v;
    tile.sync();
    const unsigned first = tile.meta_group_rank() * waves;
    T r = *tile.template partial<T>(first);
    for (unsigned w = 1; w < waves; ++w) r = op(r, *tile.template partial<T>(first + w));
    tile.sync();  // every thread has read the partials before a later reduce writes them
    return r;
  }
}

// cg::reduce over any other group: WAVE009's shuffle tree, broadcast from rank 0.
// Any size: the tree starts at the size rounded up to a power of two and a rank combines only
// ranks that exist (a coalesced or labeled group of 5 threads).
template <class Group, class T, class Op>
__device__ T reduce(const Group& g, T v, Op op) {
  const unsigned n = g.size();
  unsigned o = 1;
  while (o < n) o *= 2;
  for (o /= 2; o > 0; o /= 2) {
    const T t = g.shfl_down(v, o);
    if (g.thread_rank() + o < n) v = op(v, t);
  }
  return g.shfl(v, 0);
}

}  // namespace porter
