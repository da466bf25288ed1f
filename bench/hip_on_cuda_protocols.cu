// Standalone microbenchmark of wave-handshake protocols for shims/hip_on_cuda (issue 13, item 4):
// two 32-lane warps of a 64-lane wave exchanging one 32-bit value per lane per iteration
// (x += value of lane ^ 32), against the hardware's own warp shuffle and the floors of
// warp-to-warp synchronisation on the H200. 132 blocks x 256 threads (4 waves), 4096
// iterations, ms per launch (mean of 5 after a warm-up). Plain CUDA, no shims.
//   nvcc -std=c++17 -O3 -arch=sm_90 bench/hip_on_cuda_protocols.cu -o /tmp/protocols && /tmp/protocols
#include <cstdio>
#include <cuda_runtime.h>

#define DEV __device__ __forceinline__
constexpr int kIters = 4096;

DEV unsigned saddr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
DEV unsigned long long ldv(unsigned a) {
  unsigned long long v;
  asm volatile("ld.volatile.shared.u64 %0, [%1];" : "=l"(v) : "r"(a) : "memory");
  return v;
}
DEV unsigned long long lda(unsigned a) {
  unsigned long long v;
  asm volatile("ld.acquire.cta.shared.u64 %0, [%1];" : "=l"(v) : "r"(a) : "memory");
  return v;
}
DEV void stv(unsigned a, unsigned long long v) { asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(a), "l"(v) : "memory"); }
DEV void strel(unsigned a, unsigned long long v) { asm volatile("st.release.cta.shared.u64 [%0], %1;" ::"r"(a), "l"(v) : "memory"); }
DEV unsigned long long exch(unsigned a, unsigned long long v) {
  unsigned long long o;
  asm volatile("atom.relaxed.cta.shared.exch.b64 %0, [%1], %2;" : "=l"(o) : "r"(a), "l"(v) : "memory");
  return o;
}
DEV unsigned long long exch_rel(unsigned a, unsigned long long v) {
  unsigned long long o;
  asm volatile("atom.release.cta.shared.exch.b64 %0, [%1], %2;" : "=l"(o) : "r"(a), "l"(v) : "memory");
  return o;
}
// The cold path of a spin: a bounded-wait clock look, out of line (never taken here).
__device__ __noinline__ void slow_path(unsigned long long* t0) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  if (*t0 == 0) *t0 = t;
  else if (t - *t0 > 100000000ull) { printf("timeout\n"); __trap(); }
}

// Session 6's ladder (modes 19-22): a block tag with the ready bit, as the own arrival word
// carries it, and the first-barrier set-up the test guards (out of line; never taken here).
constexpr unsigned long long kTag = 0x1234567800000000ull | 0x200ull;
__device__ __noinline__ unsigned long long cold_setup(unsigned long long* t0, unsigned long long w) {
  printf("cold %llu\n", w);
  *t0 = w;
  __trap();
}
DEV bool try_wait_token(unsigned bar, unsigned long long st) {
  unsigned done;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(done) : "r"(bar), "l"(st) : "memory");
  return done != 0u;
}

struct Shared {
  unsigned long long flag[16][2];
  unsigned long long mb[16];
  unsigned long long cnt[16][2];
  unsigned long long pw[2][16][2];
  unsigned long long slot[2][16][64];
};

template <int MODE>
__global__ void proto(float* out, int iters) {
  __shared__ Shared s;
  const unsigned t = threadIdx.x, wave = t / 64, half = (t / 32) & 1, lane = t & 31, l64 = t & 63;
  for (unsigned i = t; i < sizeof(Shared) / 8; i += blockDim.x) reinterpret_cast<unsigned long long*>(&s)[i] = 0;
  if ((MODE == 3 || MODE >= 15) && l64 == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(saddr(&s.mb[wave])), "r"(64));
  if ((MODE == 4 || MODE == 14) && l64 == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(saddr(&s.mb[wave])), "r"(2));
  __syncthreads();
  if (MODE >= 19) {  // after the zeroing above
    if ((t & 31u) == 0) s.flag[wave][half] = kTag;
    __syncthreads();
  }
  const unsigned me = saddr(&s.flag[wave][half]), other = saddr(&s.flag[wave][half ^ 1]);
  const unsigned mb = saddr(&s.mb[wave]);
  float x = t * 0.5f;
  unsigned long long t0 = 0;
  for (int i = 1; i <= iters; ++i) {
    if (MODE == 0) {  // native warp shuffle (the reference)
      x += __shfl_xor_sync(0xffffffffu, x, 1);
    } else if (MODE == 1) {  // floor: leader stores a counter, every lane spins (divergent), syncwarp
      __syncwarp();
      if (lane == 0) stv(me, i);
      while (ldv(other) < static_cast<unsigned long long>(i)) {}
      __syncwarp();
      x += 1.f;
    } else if (MODE == 2) {  // floor: same, spin made warp-uniform by a vote
      __syncwarp();
      if (lane == 0) stv(me, i);
      while (!__all_sync(0xffffffffu, ldv(other) >= static_cast<unsigned long long>(i))) {}
      x += 1.f;
    } else if (MODE == 3) {  // floor: mbarrier, every lane arrives, try_wait.parity
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mb) : "memory");
      asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                   ::"r"(mb), "r"((i - 1) & 1) : "memory");
      x += 1.f;
    } else if (MODE == 4) {  // floor: mbarrier, leader arrives for its warp after __syncwarp
      __syncwarp();
      if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mb) : "memory");
      asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                   ::"r"(mb), "r"((i - 1) & 1) : "memory");
      x += 1.f;
    } else if (MODE == 14) {  // floor: mbarrier, the leader arrives and waits on its token, the
      // warp waits at __syncwarp (the protocol of shims/hip_on_cuda/porter_hoc/wave.h, no data)
      __syncwarp();
      if (lane == 0) {
        unsigned long long st;
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(mb) : "memory");
        asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.acquire.cta.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                     ::"r"(mb), "l"(st) : "memory");
      }
      __syncwarp();
      x += 1.f;
    } else if (MODE == 15 || MODE == 16 || MODE == 17) {
      // 15: floor_mbarrier_all_lanes plus a __syncwarp after the wait; 16: every lane arrives,
      // keeps its token and waits on it; 17: 16 plus a load of a shared word before the arrive
      // and after the wait (the protocol's own and partner arrival words)
      unsigned long long st;
      if (MODE == 17) x += static_cast<float>(ldv(me) & 1ull);
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(mb) : "memory");
      if (MODE == 15)
        asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                     ::"r"(mb), "r"((i - 1) & 1) : "memory");
      else
        asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                     ::"r"(mb), "l"(st) : "memory");
      if (MODE == 15) __syncwarp();
      if (MODE == 17) x += static_cast<float>(ldv(other) & 1ull);
      x += 1.f;
    } else if (MODE == 18) {
      // 18: the design floor of a collective on the wave's mbarrier (session 4): the own word
      // loaded (its parity picks the buffer), the lane's slot stored, the leader's word stored,
      // every lane arrives and waits on its token, __syncwarp, then the partner's word and
      // the source slot loaded in one round trip - no tag, no flags, no exit handling.
      const unsigned long long w = ldv(me);
      const unsigned b = static_cast<unsigned>(w + 1ull) & 1u;
      stv(saddr(&s.slot[b][wave][l64]), __float_as_uint(x));
      if (lane == 0) stv(me, w + 1ull);
      unsigned long long st;
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(mb) : "memory");
      asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.shared::cta.b64 p, [%0], %1; @!p bra W%=; }"
                   ::"r"(mb), "l"(st) : "memory");
      __syncwarp();
      const unsigned long long theirs = ldv(other);
      const unsigned long long v = ldv(saddr(&s.slot[b][wave][l64 ^ 32u]));
      x += (theirs + 1ull >= w ? __uint_as_float(static_cast<unsigned>(v)) : 0.f);
    } else if (MODE == 23 || MODE == 24) {
      // 23: mode 20 with the cold branch a trap (no call, no join: what the call and its
      //     convergence region cost); 24: mode 20 + the live lanes (activemask) tested in the
      //     same branch as the tag, the fast path assuming a whole warp (lane 0 the leader, one
      //     arrival per lane, the constant-mask vote): session 6's "whole-warp fast path".
      const unsigned long long w = ldv(me);
      const unsigned long long next = (w & ~0x3full) | ((w + 1ull) & 0x3full);
      const unsigned live = MODE == 24 ? __activemask() : 0xffffffffu;
      const bool cold = ((w ^ (kTag & ~0x3ffull)) & (~0x3ffull | 0x300ull)) != 0x200ull || live != 0xffffffffu;
      unsigned long long nx = next;
      if (MODE == 23 && cold) __trap();
      if (MODE == 24 && cold) nx = cold_setup(&t0, w);
      const unsigned b = static_cast<unsigned>(nx) & 1u;
      stv(saddr(&s.slot[b][wave][l64]), __float_as_uint(x));
      stv(saddr(&s.pw[b][wave][half]), 0xffffffffu);
      if (lane == 0) stv(me, nx);
      unsigned long long st;
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(mb) : "memory");
      bool done = __all_sync(0xffffffffu, try_wait_token(mb, st));
      for (unsigned k = 1; !done; ++k) {
        if (lane == 0 && (k & 7u) == 3u) slow_path(&t0);
        done = __all_sync(0xffffffffu, try_wait_token(mb, st));
      }
      const unsigned long long theirs = ldv(saddr(&s.pw[b][wave][half ^ 1u]));
      const unsigned long long v = ldv(saddr(&s.slot[b][wave][l64 ^ 32u]));
      asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0; @p st.shared.u64 [%1], %2; }"
                   ::"r"(static_cast<unsigned>(theirs)), "r"(saddr(&s.pw[b ^ 1u][wave][half ^ 1u])), "l"(0ull) : "memory");
      x += (theirs & 1ull) ? __uint_as_float(static_cast<unsigned>(v)) : 0.f;
    } else if (MODE >= 19 && MODE <= 22) {
      // Session 6's ladder: the fast path of shims/hip_on_cuda/porter_hoc/wave.h (session 6) built
      // up from its data path, one feature per mode, to see what each costs.
      // 19: own word loaded (its parity picks the buffer), the lane's slot and the warp word
      //     stored, lane 0 stores the own word, every lane arrives, the wait a warp vote on
      //     try_wait (first try outside the loop), the partner's warp word and the source slot
      //     loaded together, the slot masked by the partner's live bit;
      // 20: + the own word's tag test (this block, ready) with an out-of-line cold call (never taken);
      // 21: + the live lanes (activemask), the leader (first live lane) and its stand-in
      //     arrivals (33 - popc), the vote's constant full mask behind a test of the live lanes;
      // 22: + the barrier picked by a flag of the own word, the propagation store (predicated).
      const unsigned long long w = ldv(me);
      unsigned long long next = (w & ~0x3full) | ((w + 1ull) & 0x3full);
      if (MODE >= 20 && ((w ^ (kTag & ~0x3ffull)) & (~0x3ffull | 0x200ull)) != 0x200ull) next = cold_setup(&t0, w);
      const unsigned b = static_cast<unsigned>(next) & 1u;
      unsigned live = 0xffffffffu;
      bool leader = lane == 0;
      unsigned count = 1u;
      if (MODE >= 21) {
        live = __activemask();
        leader = lane == static_cast<unsigned>(__ffs(live) - 1);
        count = leader ? 33u - __popc(live) : 1u;
      }
      stv(saddr(&s.slot[b][wave][l64]), __float_as_uint(x));
      stv(saddr(&s.pw[b][wave][half]), live);
      unsigned bar = mb;
      if (MODE >= 22) bar = (next & 0x100ull) ? saddr(&s.cnt[wave][half]) : mb;
      if (leader) stv(me, next);
      unsigned long long st;
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(bar), "r"(count) : "memory");
      bool done;
      if (MODE >= 21 && live != 0xffffffffu) done = __all_sync(live, try_wait_token(bar, st));
      else done = __all_sync(0xffffffffu, try_wait_token(bar, st));
      for (unsigned k = 1; !done; ++k) {
        if (leader && (k & 7u) == 3u) slow_path(&t0);
        if (MODE >= 21 && live != 0xffffffffu) done = __all_sync(live, try_wait_token(bar, st));
        else done = __all_sync(0xffffffffu, try_wait_token(bar, st));
      }
      const unsigned long long theirs = ldv(saddr(&s.pw[b][wave][half ^ 1u]));
      const unsigned long long v = ldv(saddr(&s.slot[b][wave][l64 ^ 32u]));
      if (MODE >= 22)
        asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0; @p st.shared.u64 [%1], %2; }"
                     ::"r"(static_cast<unsigned>(theirs)), "r"(saddr(&s.pw[b ^ 1u][wave][half ^ 1u])), "l"(0ull) : "memory");
      x += (theirs & 1ull) ? __uint_as_float(static_cast<unsigned>(v)) : 0.f;
    } else if (MODE == 5) {  // floor: hardware named barrier of the wave's 64 threads
      asm volatile("bar.sync %0, 64;" ::"r"(wave + 1) : "memory");
      x += 1.f;
    } else if (MODE == 6) {  // floor: one-way ping-pong latency (wave's warps alternate)
      // warp half h waits for the counter 2i-1+h-1 of the other, then publishes its own: a
      // strict alternation, so the time per iteration is two store-to-load handoffs.
      const unsigned long long want = 2ull * i - 2ull + half;  // what the other must have written
      while (ldv(other) < want) {}
      __syncwarp();
      if (lane == 0) stv(me, want + 1);
      x += 1.f;
    } else {
      // Data-carrying exchanges: lane l stores {seq, value} in its slot of buffer seq&1; the
      // warp's leader stores {seq, live mask} in its warp word of that buffer; a reader polls its
      // partner warp's word and its source slot in one loop iteration until both carry seq.
      const unsigned n = static_cast<unsigned>(ldv(saddr(&s.cnt[wave][half]))) + 1u;  // own count
      const unsigned b = n & 1u;
      const unsigned live = __activemask();
      const unsigned long long tagn = static_cast<unsigned long long>(n) << 32;
      stv(saddr(&s.slot[b][wave][l64]), tagn | __float_as_uint(x));
      const bool leader = lane == static_cast<unsigned>(__ffs(live) - 1);
      unsigned long long old = 0;
      if (MODE == 7 || MODE == 8 || MODE == 10) {
        if (leader) stv(saddr(&s.pw[b][wave][half]), tagn | live);
      } else if (MODE == 9) {
        if (leader) old = exch(saddr(&s.pw[b][wave][half]), tagn | live);
      } else if (MODE == 11) {
        if (leader) old = exch_rel(saddr(&s.pw[b][wave][half]), tagn | live);
      }
      if (leader) stv(saddr(&s.cnt[wave][half]), n);
      if (MODE == 12 || MODE == 13) {
        // 12: a 64-lane shuffle down by 1 (only lane 31 reads the other warp; the other lanes
        // read their own warp by __shfl_down_sync, but every lane waits for the partner's
        // word: the barrier that makes buffer reuse safe). 13: a 64-bit ballot, the
        // partner's ballot in a second warp word.
        if (leader) stv(saddr(&s.pw[b][wave][half]), tagn | live);
        const unsigned bal = __ballot_sync(live, x > 0.f);
        if (MODE == 13 && leader) stv(saddr(&s.slot[b][wave][32 * half]), tagn | bal);
        const unsigned pa = saddr(&s.pw[b][wave][half ^ 1]);
        const unsigned src = MODE == 13 ? 32u * (half ^ 1u) : (l64 == 31u ? 32u : l64);
        const bool cross = MODE == 13 || l64 == 31u;
        const unsigned sa = saddr(&s.slot[b][wave][src]);
        const float mine = __shfl_down_sync(live, x, 1);
        unsigned long long w, v = 0;
        for (unsigned k = 1;; ++k) {
          w = ldv(pa);
          if (cross) v = ldv(sa);
          if ((w >> 32) == n && (!cross || !((w >> (src & 31u)) & 1ull) || (v >> 32) == n)) break;
          if ((k & 15u) == 0) slow_path(&t0);
        }
        __syncwarp(live);
        if (MODE == 12) {
          x += l64 == 63u ? x : (cross ? (((w >> (src & 31u)) & 1ull) ? __uint_as_float(static_cast<unsigned>(v)) : 0.f) : mine);
        } else {
          const unsigned long long other_bal = (w >> 32) == n ? (static_cast<unsigned>(v) & static_cast<unsigned>(w)) : 0u;
          const unsigned long long r = half ? (other_bal | (static_cast<unsigned long long>(bal) << 32)) : (bal | (other_bal << 32));
          x += static_cast<float>(r & 1ull);
        }
        continue;
      }
      const unsigned src = l64 ^ 32u;
      const unsigned pa = saddr(&s.pw[b][wave][half ^ 1]), sa = saddr(&s.slot[b][wave][src]);
      unsigned long long w, v;
      if (MODE == 8) {  // warp-uniform spin (vote)
        for (unsigned k = 1;; ++k) {
          w = ldv(pa);
          v = ldv(sa);
          const bool ok = (w >> 32) == n && (!((w >> (src & 31u)) & 1ull) || (v >> 32) == n);
          if (__all_sync(live, ok)) break;
          if ((k & 15u) == 0) slow_path(&t0);
        }
      } else if (MODE == 10) {  // acquire loads in the spin
        for (unsigned k = 1;; ++k) {
          w = lda(pa);
          v = lda(sa);
          if ((w >> 32) == n && (!((w >> (src & 31u)) & 1ull) || (v >> 32) == n)) break;
          if ((k & 15u) == 0) slow_path(&t0);
        }
        __syncwarp(live);
      } else {
        for (unsigned k = 1;; ++k) {
          w = ldv(pa);
          v = ldv(sa);
          if ((w >> 32) == n && (!((w >> (src & 31u)) & 1ull) || (v >> 32) == n)) break;
          if ((k & 15u) == 0) slow_path(&t0);
        }
        __syncwarp(live);
      }
      if ((MODE == 9 || MODE == 11) && leader && (old >> 63)) { printf("given up\n"); __trap(); }
      x += ((w >> (src & 31u)) & 1ull) ? __uint_as_float(static_cast<unsigned>(v)) : 0.f;
    }
  }
  out[blockIdx.x * blockDim.x + t] = x;
}

template <class F>
float time_ms(F launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int r = 0; r < 5; ++r) launch();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms / 5;
}

int main() {
  float* out;
  cudaMalloc(&out, 132 * 256 * sizeof(float));
  const char* names[] = {"native_shfl_xor_sync", "floor_flag_divergent_spin", "floor_flag_uniform_spin",
                         "floor_mbarrier_all_lanes", "floor_mbarrier_leader", "floor_bar_sync_64",
                         "floor_pingpong_one_way_x2", "data_tagged_st", "data_tagged_st_uniform_spin",
                         "data_tagged_exch", "data_tagged_acquire", "data_tagged_exch_release", "data_tagged_shfl_down", "data_tagged_ballot", "floor_mbarrier_leader_token", "floor_mbarrier_all_lanes_syncwarp", "floor_mbarrier_all_lanes_token", "floor_mbarrier_token_2_loads", "floor_collective_s4_design",
                         "s6_data_vote_wait", "s6_+tag_test", "s6_+live_leader", "s6_+bar_select_propagation",
                         "s6_tag_test_trap", "s6_whole_warp_fast_path"};
#define RUN(M) printf("%-30s %.4f\n", names[M], time_ms([&] { proto<M><<<132, 256>>>(out, kIters); }))
  RUN(0); RUN(1); RUN(2); RUN(3); RUN(4); RUN(5); RUN(6); RUN(7); RUN(8); RUN(9); RUN(10); RUN(11); RUN(12); RUN(13); RUN(14); RUN(15); RUN(16); RUN(17); RUN(18); RUN(19); RUN(20); RUN(21); RUN(22); RUN(23); RUN(24);
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
