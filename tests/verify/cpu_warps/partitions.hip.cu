// binary_partition and coalesced_threads() of shims/hip_on_cuda (AMD semantics on a wave of 64
// lanes: the wave's two NVIDIA warps) on tests/verify/cpu_warps, where __activemask() names the
// caller alone as independent thread scheduling allows: a group's lanes must be brought
// together by the shim, not found together. fixtures/hip_on_cuda/coalesced_group.hip.cu's
// partitions, every lane taking part (the model's wave functions meet every lane of the wave).
#include <cstdio>
#include <vector>

#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

namespace cg = cooperative_groups;

enum Field { kRank, kSize, kShfl5, kDown2, kBallot, kHalf, k32Size, k32Rank, k32Shfl0, k64Size, k64Rank, k64Down1, kFields };
static const char* kNames[kFields] = {"thread_rank", "size", "shfl(t,5)", "shfl_down(t,2)", "ballot(t%3==0)",
                                      "binary_partition(g).size", "binary_partition<32>.size",
                                      "binary_partition<32>.thread_rank", "binary_partition<32>.shfl(t,0)",
                                      "binary_partition<64>.size", "binary_partition<64>.thread_rank",
                                      "binary_partition<64>.shfl_down(t,1)"};

inline bool side32(unsigned t) { return t % 3u == 0u; }
inline bool side64(unsigned t) { return (t / 3u) % 2u == 0u; }
inline bool half(unsigned t) { return t % 64u < 40u; }

__global__ void partitions(unsigned long long* out) {
  const unsigned t = threadIdx.x;
  unsigned long long* o = out + static_cast<size_t>(t) * kFields;
  cg::coalesced_group g = cg::coalesced_threads();
  o[kRank] = g.thread_rank();
  o[kSize] = g.size();
  o[kShfl5] = static_cast<unsigned>(g.shfl(static_cast<int>(t), 5));
  o[kDown2] = static_cast<unsigned>(g.shfl_down(static_cast<int>(t), 2));
  o[kBallot] = g.ballot(side32(t));
  o[kHalf] = cg::binary_partition(g, half(t)).size();
  const cg::thread_block block = cg::this_thread_block();
  cg::coalesced_group s32 = cg::binary_partition(cg::tiled_partition<32>(block), side32(t));
  o[k32Size] = s32.size();
  o[k32Rank] = s32.thread_rank();
  o[k32Shfl0] = static_cast<unsigned>(s32.shfl(static_cast<int>(t), 0));
  cg::coalesced_group s64 = cg::binary_partition(cg::tiled_partition<64>(block), side64(t));
  o[k64Size] = s64.size();
  o[k64Rank] = s64.thread_rank();
  o[k64Down1] = static_cast<unsigned>(s64.shfl_down(static_cast<int>(t), 1));
}

static unsigned popc(unsigned long long m) { return static_cast<unsigned>(__builtin_popcountll(m)); }
static unsigned nth(unsigned long long m, unsigned r) {
  for (unsigned i = 0; i < r; ++i) m &= m - 1ull;
  return static_cast<unsigned>(__builtin_ctzll(m));
}
static unsigned long long below(unsigned lane) { return (1ull << lane) - 1ull; }
static unsigned long long above(unsigned long long m, unsigned lane) { return lane == 63 ? 0ull : (m & ~((2ull << lane) - 1ull)); }

/* A wave of 64 lanes for thread t of a block of nthreads (ROCm 6.3: a tile's side of pred false
 * is its aligned run less the lanes of pred true, lanes past the block's end included). */
static unsigned long long expected(Field f, unsigned t, unsigned nthreads) {
  const unsigned lane = t % 64, base = t - lane;
  const unsigned size = nthreads - base < 64 ? nthreads - base : 64;
  const unsigned long long m = size == 64 ? ~0ull : ((1ull << size) - 1ull);
  auto split = [&](unsigned n, bool (*pred)(unsigned)) {
    const unsigned long long run = (n == 64 ? ~0ull : ((1ull << n) - 1ull)) << ((lane / n) * n);
    unsigned long long taken = 0;
    for (unsigned l = 0; l < size; ++l)
      if (((run >> l) & 1ull) && pred(base + l)) taken |= 1ull << l;
    return pred(t) ? taken : (run ^ taken);
  };
  switch (f) {
    case kRank: return popc(m & below(lane));
    case kSize: return popc(m);
    case kShfl5: return base + nth(m, 5 % popc(m));
    case kDown2: return popc(above(m, lane)) >= 2 ? base + nth(above(m, lane), 1) : t;
    case kBallot: {
      unsigned long long r = 0;
      for (unsigned k = 0; k < popc(m); ++k)
        if (side32(base + nth(m, k))) r |= 1ull << k;
      return r;
    }
    case kHalf: {
      unsigned n = 0;
      for (unsigned l = 0; l < size; ++l) n += half(base + l) == half(t) ? 1u : 0u;
      return n;
    }
    case k32Size: return popc(split(32, side32));
    case k32Rank: return popc(split(32, side32) & below(lane));
    case k32Shfl0: return base + nth(split(32, side32), 0);
    case k64Size: return popc(split(64, side64));
    case k64Rank: return popc(split(64, side64) & below(lane));
    case k64Down1: {
      const unsigned long long up = above(split(64, side64), lane);
      return up ? base + nth(up, 0) : t;
    }
    default: return ~0ull;
  }
}

int main() {
  size_t checked = 0, bad = 0;
  for (unsigned nthreads : {256u, 100u}) {
    std::vector<unsigned long long> h(static_cast<size_t>(nthreads) * kFields, ~0ull);
    unsigned long long* d = nullptr;
    hipMalloc(&d, h.size() * sizeof(unsigned long long));
    hipLaunchKernelGGL(partitions, dim3(1), dim3(nthreads), 0, 0, d);
    hipDeviceSynchronize();
    hipMemcpy(h.data(), d, h.size() * sizeof(unsigned long long), hipMemcpyDeviceToHost);
    hipFree(d);
    for (unsigned t = 0; t < nthreads; ++t)
      for (int f = 0; f < kFields; ++f) {
        const unsigned long long got = h[static_cast<size_t>(t) * kFields + f], want = expected(static_cast<Field>(f), t, nthreads);
        ++checked;
        if (got != want && bad++ < 10)
          printf("  mismatch block %u t=%u %s: got 0x%llx want 0x%llx\n", nthreads, t, kNames[f], got, want);
      }
  }
  if (bad) {
    printf("FAIL partitions %zu mismatches of %zu values\n", bad, checked);
    return 1;
  }
  printf("PASS partitions (%zu values)\n", checked);
  return 0;
}
