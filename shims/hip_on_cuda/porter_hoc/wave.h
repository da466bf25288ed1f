/* porter hip_on_cuda: a 64-lane AMD wavefront emulated by two NVIDIA warps.
 *
 * Stands in for: HIP's cross-lane functions on gfx9 (__shfl, __shfl_up, __shfl_down,
 * __shfl_xor, __ballot, __any, __all, __activemask, __lane_id, the *_sync forms with 64-bit
 * masks, __match_any_sync / __match_all_sync), written from their documented behaviour
 * (HIP C++ language extensions, "Warp cross-lane functions", ROCm 6.3), not from ROCm source.
 *
 * Model
 *   - A block's threads are numbered linearly, x fastest (t = x + X*(y + Y*z)); this is both
 *     HIP's wave assignment and CUDA's warp assignment. Lane = t % 64, wave = t / 64, so a wave
 *     is NVIDIA warps 2w and 2w+1 ("halves" 0 and 1).
 *   - A collective is an exchange through shared memory: every lane of the wave writes one
 *     64-bit slot, the two warps synchronise, every lane reads what it needs, the two warps
 *     synchronise again (so the next collective cannot overwrite a slot still being read).
 *   - The two warps synchronise through one arrival word per warp in the same scratch (below,
 *     "Wave barrier"); within a warp, __syncwarp over its live lanes. A wave of one warp (the
 *     tail of a block whose size is not a multiple of 64) needs only the __syncwarp.
 *   - Lanes that have exited (returned) are inactive, as on AMD: a read from an inactive lane
 *     returns 0 (ds_bpermute_b32 semantics: "reading from inactive lanes returns 0", Rust
 *     core::arch::amdgpu::ds_bpermute docs), they contribute 0 to ballots and are excluded
 *     from __activemask. Liveness of a warp's lanes is taken with __ballot_sync over the lanes
 *     that exist, which exited threads do not block (CUDA Programming Guide, warp vote).
 *
 * Wave barrier. A hardware named barrier (`barrier.sync id, 64`) cannot serve: PTX releases a
 * barrier held up by exiting threads only for barriers of all threads of the CTA (PTX ISA,
 * "exit"), so a wave one of whose warps returned - on AMD simply a wave with half its lanes
 * inactive, e.g. an edge tile that one warp leaves - would wait forever. Instead each warp
 * counts the barriers it has passed in its arrival word, and waits for the other warp's count
 * to reach its own. Nothing on an NVIDIA GPU tells a warp that another warp has exited, so the
 * wait is bounded: after PORTER_HOC_ABSENT_MS (default 100) of %globaltimer without the other
 * warp arriving, the waiting warp presumes it exited, says so in its own arrival word (an
 * "absent" bit; each warp writes only its own word, with plain stores) and goes on with those
 * 32 lanes inactive - AMD's semantics for exited lanes, and for lanes that branched elsewhere
 * while this collective ran. That costs one wait per such wave and block; later collectives
 * of the warp see its own bit and do not wait. A decision taken in the very instant the
 * partner arrives is undone (both sides fence between their store and their load of the
 * other's word, so at least one sees the other). If the presumed warp was in fact alive, its
 * next collective finds the bit and traps with a message naming the block and the wave: the
 * run fails loudly, never with a silent wrong value and never with a hang. Collectives whose
 * sources all lie in the caller's own warp (segments of <= 32 lanes) do not use the barrier
 * at all, so a 16-lane reduction under `if (threadIdx.y == 0)` never waits.
 *   Shared memory is not initialised at launch, so an arrival word carries a tag of its block
 *   and launch (%gridid, the launch's number in the context, and the linear block index) and a
 *   word with another tag reads as "no barrier passed yet". Word layout: bits 63..42 %gridid
 *   mod 2^22, 41..10 the block index mod 2^32, 9 the final bit (the absent decision stands),
 *   8 the absent bit, 7..0 the count mod 256 (the two warps of a wave are never more than one
 *   barrier apart).
 *   Why a bounded wait and not a detection of the exited warp: nothing on an NVIDIA GPU tells a
 *   warp that another warp has exited - no special register or instruction reads another warp's
 *   state; `bar.sync 0` accounts for exited warps, but only as a barrier of the whole CTA (the
 *   other waves are not at it); and there is no hook at a thread's return that could leave a
 *   mark (ports are plain HIP: an exit is the end of the kernel function or a `return`). A
 *   shorter bound would turn a slow but live half into a false alarm (the trap above), so the
 *   bound stays; what is avoided is waiting where no partner is needed (below).
 *   Named barriers after the handshake (each warp enters `barrier.sync wave+1, 64` only once it
 *   has seen the other arrive, so no exited warp is waited for) were measured on the H200 and
 *   not kept: slower than the fenced store/load (1.90 against 1.79 ms for 4096 collectives) and
 *   12 more registers, which kept 1024-thread blocks from launching
 *   (docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md).
 *
 * Contract (what ported code must satisfy here; violations are undefined: wrong values or a
 * trap with a message)
 *   1. Every live lane of the wave calls the collective together, as on AMD hardware where the
 *      wave executes in lockstep. A collective under a branch that splits a wave - e.g.
 *      `if (threadIdx.x / 32 == 0) v = __shfl_down(v, 1);`, a wave32 idiom - runs after the
 *      bounded wait with the other half inactive (as on AMD); if that half calls a collective
 *      later, it traps. Two halves calling two different collectives at the same time pair up
 *      wrongly (undiagnosed).
 *   2. A warp of the wave that returns entirely is presumed exited at the other warp's next
 *      collective, after the bounded wait. A warp that is alive but spends longer than
 *      PORTER_HOC_ABSENT_MS between two collectives while its partner waits is presumed exited
 *      too, and traps at its next collective: raise the define for such kernels.
 *   3. Wave-synchronous code that communicates through LDS without a barrier, relying on the
 *      wave's lockstep, is not emulated: the two warps are not in lockstep. Use __syncthreads,
 *      or __builtin_amdgcn_wave_barrier / __syncwarp, which map to the wave barrier here.
 *
 * Cost: 8.9 KiB of static shared memory per block in kernels that use a collective (two
 * buffers x 16 waves x 64 lanes x 4 bytes, plus the per-warp words), counted against the 48 KiB
 * static limit and the opt-in maximum of dynamic shared memory. A collective costs one wave
 * barrier (two for a 64-bit value); a shuffle whose sources all lie in the caller's 32-lane
 * half (a segment of <= 32 lanes, a lane mask < 32) is CUDA's own warp shuffle and waits for
 * nobody.
 */
#pragma once

#include <porter_hoc/config.h>

/* How long a collective waits for the other warp of its wave before presuming it exited. */
#ifndef PORTER_HOC_ABSENT_MS
#define PORTER_HOC_ABSENT_MS 100
#endif

namespace porter_hoc {

constexpr unsigned kWaveLanes = 64;
constexpr unsigned kMaxWaves = 16;           // 1024 threads per block / 64

/* Shared scratch of all collectives. A function-scope __shared__ variable of an inline
 * function is one per block in each kernel that (transitively) uses it; kernels that use no
 * collective do not pay for it. */
struct WaveScratch {
  /* Two buffers, used by alternate collectives of a wave (the parity of its barrier count):
   * a collective writes one while the partner may still read the other, so one barrier per
   * collective orders everything (see WaveCall). */
  unsigned slot[2][kMaxWaves][kWaveLanes];  // one 32-bit word per lane (64-bit values: two calls)
  unsigned word[2][kMaxWaves][2];  // one 32-bit word per warp (a warp's ballot, say)
  unsigned live[2][kMaxWaves][2];  // the live lanes of each warp
};

__device__ inline WaveScratch& scratch() {
  __shared__ WaveScratch s;
  return s;
}

/* Where the calling thread sits in its wave. */
struct WavePos {
  unsigned lane;       // 0..63
  unsigned wave;       // wave index in the block
  unsigned half;       // 0: lanes 0-31 (warp 2*wave), 1: lanes 32-63 (warp 2*wave+1)
  unsigned nwarps;     // warps in this wave: 2, or 1 for a tail wave of <= 32 threads
  unsigned warp_mask;  // lanes of the calling warp that exist (tail of a partial block)
};

__device__ inline WavePos wave_pos() {
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  WavePos p;
  p.lane = t % kWaveLanes;
  p.wave = t / kWaveLanes;
  p.half = p.lane / 32;
  const unsigned in_wave = min(kWaveLanes, nthreads - p.wave * kWaveLanes);
  p.nwarps = (in_wave + 31) / 32;
  const unsigned in_warp = min(32u, in_wave - 32 * p.half);
  p.warp_mask = in_warp == 32 ? 0xffffffffu : ((1u << in_warp) - 1u);
  return p;
}

/* ---- the wave barrier (see "Wave barrier" above) ---- */

constexpr unsigned long long kArrivalCount = 0xffull;    // bits 7..0
constexpr unsigned long long kArrivalAbsent = 0x100ull;  // bit 8: "I go on without my partner"
constexpr unsigned long long kArrivalFinal = 0x200ull;   // bit 9: ... and that decision is final
constexpr unsigned long long kArrivalTag = ~0x3ffull;    // bits 63..10
constexpr unsigned long long kAbsentNs = 1000000ull * PORTER_HOC_ABSENT_MS;
/* How long a late warp waits for its partner to withdraw an "absent" decision taken in the
 * same instant (see arrive_and_wait): far longer than the few instructions that takes. */
constexpr unsigned long long kGraceNs = 2000000ull;

/* The arrival words, one per warp, in their own shared variable: the MFMA emulation
 * (porter_hoc/mfma.h) synchronises through them without paying for WaveScratch's buffers. */
__device__ inline unsigned long long (&arrivals())[kMaxWaves][2] {
  __shared__ unsigned long long words[kMaxWaves][2];
  return words;
}

/* This block of this launch, in the tag bits of an arrival word. */
__device__ inline unsigned long long arrival_tag() {
  unsigned long long grid;
  asm("mov.u64 %0, %%gridid;" : "=l"(grid));
  const unsigned long long block =
      blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                       (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  return ((grid << 32) | (block & 0xffffffffull)) << 10;
}

__device__ inline unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Shared-memory accesses of the arrival words with the orderings the protocol needs (PTX
 * memory model, CTA scope). */
__device__ inline unsigned shared_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ inline unsigned long long load_relaxed(const unsigned long long* w) {
  unsigned long long v;
  asm volatile("ld.relaxed.cta.shared.u64 %0, [%1];" : "=l"(v) : "r"(shared_addr(w)) : "memory");
  return v;
}
__device__ inline unsigned long long load_acquire(const unsigned long long* w) {
  unsigned long long v;
  asm volatile("ld.acquire.cta.shared.u64 %0, [%1];" : "=l"(v) : "r"(shared_addr(w)) : "memory");
  return v;
}
__device__ inline void store_relaxed(unsigned long long* w, unsigned long long v) {
  asm volatile("st.relaxed.cta.shared.u64 [%0], %1;" ::"r"(shared_addr(w)), "l"(v) : "memory");
}
__device__ inline void store_release(unsigned long long* w, unsigned long long v) {
  asm volatile("st.release.cta.shared.u64 [%0], %1;" ::"r"(shared_addr(w)), "l"(v) : "memory");
}
/* The sequentially consistent fence of the Dekker pattern below. */
__device__ inline void fence_sc() { asm volatile("fence.sc.cta;" ::: "memory"); }

/* The calling warp was presumed exited by its partner, but is running: say so and stop. */
__device__ __noinline__ inline void presumed_exited_but_alive(unsigned wave, unsigned half) {
  printf("porter hip_on_cuda: block (%u,%u,%u) wave %u: lanes %u-%u reached a wave collective "
         "after lanes %u-%u had waited %u ms for them and gone on as if they had exited. Both "
         "halves of a wave must call the same collectives: a collective under a branch that "
         "splits the wave, or a half that runs longer than PORTER_HOC_ABSENT_MS between two "
         "collectives - see porter_hoc/wave.h, Contract\n",
         blockIdx.x, blockIdx.y, blockIdx.z, wave, 32 * half, 32 * half + 31,
         32 * (half ^ 1u), 32 * (half ^ 1u) + 31, static_cast<unsigned>(PORTER_HOC_ABSENT_MS));
  __trap();
}

/* How many barriers a word says its warp has passed in this block and launch (0 for a word
 * of another block or launch: shared memory is not initialised). */
__device__ inline unsigned long long count_of(unsigned long long w, unsigned long long tag) {
  return (w & kArrivalTag) == tag ? (w & kArrivalCount) : 0ull;
}
/* Whether `count` has reached `target` (the two warps are at most one barrier apart). */
__device__ inline bool reached(unsigned long long count, unsigned long long target) {
  return static_cast<signed char>(static_cast<unsigned char>(count - target)) >= 0;
}

/* Where the calling warp stands before its next barrier, read by every lane from its warp's
 * own arrival word (written only by the warp's leader, before the __syncwarp that ended the
 * warp's previous barrier). */
struct Arrival {
  unsigned long long tag;     // this block and launch
  unsigned long long target;  // the warp's barrier count after the next barrier (mod 256)
  bool alone;                 // the partner was presumed exited: no more waiting for it
};

__device__ inline Arrival arrival_begin(const WavePos& p) {
  Arrival a;
  a.tag = arrival_tag();
  const unsigned long long seen = load_relaxed(&arrivals()[p.wave][p.half]);
  const bool ours = (seen & kArrivalTag) == a.tag;
  a.target = ((ours ? (seen & kArrivalCount) : 0ull) + 1ull) & kArrivalCount;
  a.alone = ours && (seen & kArrivalAbsent);
  return a;
}

/* Every live lane of the calling warp: publish the warp's arrival (its leader, after the
 * __syncwarp that orders every lane's writes before it), wait for the other warp's, and
 * reconverge. Returns whether the other warp took part.
 *
 * Every lane spins on the partner's word with acquire loads (no broadcast from the leader), so
 * a lane that sees the partner's arrival has acquired the partner's writes itself. The final
 * __syncwarp reconverges the warp: lanes leave the spin at different iterations, and the next
 * collective's __activemask() must see the whole warp again (the experiment of the previous
 * session, reverted as 5db1eb2, lacked it and failed ballot_popc and split_wave).
 *
 * Absent partner. Each warp writes only its own word. Only the leader watches the clock: after
 * PORTER_HOC_ABSENT_MS it sets the absent bit in its own word ("I go on without my partner"),
 * fences, and re-reads the partner's word; if the partner did arrive, it clears the bit and
 * pairs, else it adds the final bit, which the other lanes of its warp look for while they
 * spin. The race between that decision and a late arrival is closed Dekker-style: the arriving
 * leader stores its arrival, fences (fence.sc), then loads; the giving-up leader stores its
 * bit, fences, then loads - at least one of the two sees the other. A lane that sees the
 * partner's absent bit waits a short grace for it to be cleared; if it stays, the partner
 * arrived after being given up for exited, and traps with a message. Any disagreement between
 * the two warps therefore ends in that trap, never in silently wrong values or a hang. */
__device__ inline bool arrive_and_wait(const WavePos& p, unsigned live_mine, const Arrival& a) {
  unsigned long long* mine = &arrivals()[p.wave][p.half];
  const unsigned long long* other = &arrivals()[p.wave][p.half ^ 1u];
  const bool leader = (p.lane % 32u) == static_cast<unsigned>(__ffs(live_mine) - 1);
  porter_hoc_cuda_syncwarp(live_mine);  // every lane's writes before the leader's arrival
  if (a.alone) {
    if (leader) store_relaxed(mine, a.tag | kArrivalAbsent | kArrivalFinal | a.target);
    porter_hoc_cuda_syncwarp(live_mine);  // the new count before any lane's next arrival_begin
    return false;
  }
  if (leader) {
    store_release(mine, a.tag | a.target);  // releases the warp's writes (cumulative)
    fence_sc();                             // the arrival before the loads below (Dekker)
  }
  bool partner = true;
  unsigned long long start = 0;
  unsigned sleep_ns = 0;
  for (unsigned spins = 0;; ++spins) {
    unsigned long long w = load_acquire(other);
    if ((w & kArrivalTag) == a.tag && (w & kArrivalAbsent)) {
      // The partner decided to go on without this warp. If it decided before seeing this
      // arrival, it will see it on its re-read and clear the bit: wait a grace for that.
      const unsigned long long t0 = globaltimer_ns();
      while ((w & kArrivalAbsent) && (w & kArrivalTag) == a.tag && globaltimer_ns() - t0 < kGraceNs)
        w = load_acquire(other);
      if ((w & kArrivalTag) == a.tag && (w & kArrivalAbsent)) presumed_exited_but_alive(p.wave, p.half);
      continue;
    }
    if (reached(count_of(w, a.tag), a.target)) break;
    if ((spins & 63u) != 63u) continue;
    if (!leader) {
      const unsigned long long own = load_relaxed(mine);
      if ((own & kArrivalTag) == a.tag && (own & kArrivalFinal)) {  // the leader gave up
        partner = false;
        break;
      }
    } else {
      const unsigned long long now = globaltimer_ns();
      if (start == 0 || now < start) start = now;  // first look (or the driver set the timer back)
      if (now - start > kAbsentNs) {
        store_relaxed(mine, a.tag | kArrivalAbsent | a.target);
        fence_sc();  // the decision before the re-read (Dekker)
        const unsigned long long again = load_acquire(other);
        if ((again & kArrivalTag) == a.tag && !(again & kArrivalAbsent) &&
            reached(again & kArrivalCount, a.target)) {  // it arrived meanwhile: pair
          store_relaxed(mine, a.tag | a.target);
          break;
        }
        store_relaxed(mine, a.tag | kArrivalAbsent | kArrivalFinal | a.target);
        partner = false;
        break;
      }
    }
    if (sleep_ns) __nanosleep(sleep_ns);
    sleep_ns = sleep_ns == 0 ? 32 : (sleep_ns < 1024 ? sleep_ns * 2 : sleep_ns);
  }
  porter_hoc_cuda_syncwarp(live_mine);  // reconverge; the leader's word before the next call
  return partner;
}

/* Synchronise the (one or two) warps of the caller's wave and order their shared-memory
 * accesses. `live_mine`: the live lanes of the calling warp, all of which call this. Returns
 * whether the other warp of the wave took part. A one-warp wave (the tail of a block) needs
 * only the __syncwarp. */
__device__ inline bool wave_barrier(const WavePos& p, unsigned live_mine) {
  if (p.nwarps == 1) {
    porter_hoc_cuda_syncwarp(live_mine);
    return false;
  }
  return arrive_and_wait(p, live_mine, arrival_begin(p));
}

/* The lanes of the calling warp that execute this collective: CUDA's active mask (the lanes
 * converged here), within the lanes that exist. Lanes that returned, or that are in another
 * branch, are inactive - AMD's EXEC mask for the same code. */
__device__ inline unsigned live_lanes_of_warp(const WavePos& p) {
  return porter_hoc_cuda_activemask() & p.warp_mask;
}

/* One collective call: publish, synchronise once, read. The slots of alternate calls are in
 * alternate buffers (the barrier count's parity), so the next call's writes cannot overwrite
 * what a slower partner still reads: it must pass this call's barrier before it can reach
 * the next one, and the barrier waits for both warps. */
class WaveCall {
 public:
  __device__ WaveCall() : p_(wave_pos()) { live_mine_ = live_lanes_of_warp(p_); }

  __device__ const WavePos& pos() const { return p_; }
  __device__ unsigned lane() const { return p_.lane; }
  __device__ unsigned live_mine() const { return live_mine_; }

  /* Publishes this lane's 32-bit value and this warp's 32-bit word (the same value in every
   * lane of the warp), then waits for the whole wave. */
  __device__ void publish(unsigned value, unsigned warp_word = 0) {
    WaveScratch& s = scratch();
    // The buffer of this call's barrier: the parity of the warp's barrier count after it. A
    // one-warp wave always uses 0 (it has no partner, and __syncwarp orders its own accesses).
    Arrival a = {0ull, 0ull, false};
    if (p_.nwarps == 2) a = arrival_begin(p_);
    buf_ = p_.nwarps == 1 ? 0u : static_cast<unsigned>(a.target & 1ull);
    s.slot[buf_][p_.wave][p_.lane] = value;
    if (p_.lane % 32 == __ffs(live_mine_) - 1) {  // the warp's lowest live lane
      s.word[buf_][p_.wave][p_.half] = warp_word;
      s.live[buf_][p_.wave][p_.half] = live_mine_;
    }
    if (p_.nwarps == 1) {
      porter_hoc_cuda_syncwarp(live_mine_);
      partner_ = false;
    } else {
      partner_ = arrive_and_wait(p_, live_mine_, a);
    }
    live64_ = half_word(s.live[buf_], 0) | (static_cast<unsigned long long>(half_word(s.live[buf_], 1)) << 32);
    words64_ = half_word(s.word[buf_], 0) | (static_cast<unsigned long long>(half_word(s.word[buf_], 1)) << 32);
  }

  /* After publish(): live lanes of the wave (bit i = lane i). */
  __device__ unsigned long long live() const { return live64_; }
  /* After publish(): word of half 0 in bits 0-31, of half 1 in bits 32-63 (0 if absent). */
  __device__ unsigned long long words() const { return words64_; }
  /* After publish(): the value lane `src` (0..63) published; 0 for an inactive lane. */
  __device__ unsigned value_of(unsigned src) const {
    src %= kWaveLanes;
    if (!((live64_ >> src) & 1ull)) return 0u;
    return scratch().slot[buf_][p_.wave][src];
  }

  /* Ends the call. Nothing to do: the next call writes the other buffer (see above). */
  __device__ void finish() {}

 private:
  /* A half's word: this warp's own, the partner's when it took part, else 0 (absent, or no
   * second half in a one-warp wave). */
  __device__ unsigned half_word(const unsigned (&arr)[kMaxWaves][2], unsigned h) const {
    return h == p_.half || partner_ ? arr[p_.wave][h] : 0u;
  }
  WavePos p_;
  unsigned live_mine_;
  unsigned buf_ = 0;
  bool partner_ = false;
  unsigned long long live64_ = 0, words64_ = 0;
};

/* Bits of any value of at most 8 bytes (int, float, double, __half, __half2, ...). */
template <class T>
__device__ inline unsigned long long to_bits(const T& v) {
  static_assert(sizeof(T) <= 8, "porter hip_on_cuda: cross-lane functions move at most 64 bits");
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
__device__ inline T from_bits(unsigned long long b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}

/* ---- cross-lane functions (unmasked, as HIP declares them) ---- */

__device__ inline unsigned lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % kWaveLanes;
}

/* Value of `var` in lane `src` of the caller's wave, or the caller's own value when `src`
 * is its own lane; 0 when `src` is inactive. Through the wave scratch (both warps). */
/* One 32-bit word of lane `src`; 0 when `src` is inactive. */
__device__ inline unsigned read_word(unsigned word, unsigned src) {
  WaveCall c;
  c.publish(word);
  const unsigned r = c.value_of(src);
  c.finish();
  return r;
}

template <class T>
__device__ inline T read_lane(T var, unsigned src) {
  const unsigned long long bits = to_bits(var);
  unsigned long long got = read_word(static_cast<unsigned>(bits), src);
  if (sizeof(T) > 4) got |= static_cast<unsigned long long>(read_word(static_cast<unsigned>(bits >> 32), src)) << 32;
  return (src % kWaveLanes) == lane_id() ? var : from_bits<T>(got);
}

/* The same when every lane's source lies in the caller's own half of the wave (its NVIDIA
 * warp): a segment of <= 32 lanes, or a lane mask < 32. No exchange with the other warp is
 * needed, so none is made: CUDA's shuffle over the warp's active lanes, an inactive source
 * reading 0 as on AMD. The condition depends only on width / mask, which a kernel passes
 * uniformly, so both halves of a wave take the same path. */
template <class T>
__device__ inline T read_lane_in_warp(T var, unsigned src) {
  const unsigned live = porter_hoc_cuda_activemask();
  const unsigned long long bits = to_bits(var);
  const int s32 = static_cast<int>(src % 32u);
  unsigned long long got = porter_hoc_cuda_shfl_sync(live, static_cast<unsigned>(bits), s32, 32);
  if (sizeof(T) > 4)
    got |= static_cast<unsigned long long>(
               porter_hoc_cuda_shfl_sync(live, static_cast<unsigned>(bits >> 32), s32, 32)) << 32;
  if ((src % kWaveLanes) == lane_id()) return var;
  if (!((live >> s32) & 1u)) return from_bits<T>(0ull);
  return from_bits<T>(got);
}

/* Segment width as the emulation uses it: a power of two in 1..64 (HIP: "width must be a
 * power of two no larger than warpSize"); larger values act as 64. */
__device__ inline unsigned segment(int width) {
  const unsigned w = static_cast<unsigned>(width);
  return (w == 0u || w > kWaveLanes) ? kWaveLanes : w;
}

/* The wave is cut into segments of `width` lanes (a power of two <= 64). HIP documents:
 * __shfl reads lane srcLane of the caller's segment (srcLane taken modulo width). */
template <class T>
__device__ inline T shfl(T var, int src_lane, int width = PORTER_HOC_WAVE_SIZE) {
  const unsigned w = segment(width);
  const unsigned self = lane_id();
  const unsigned src = (self & ~(w - 1u)) + (static_cast<unsigned>(src_lane) & (w - 1u));
  return w <= 32u ? read_lane_in_warp(var, src) : read_lane(var, src);
}

/* __shfl_up: lane - delta; a lane whose source would lie below its segment keeps its value. */
template <class T>
__device__ inline T shfl_up(T var, unsigned delta, int width = PORTER_HOC_WAVE_SIZE) {
  const unsigned w = segment(width);
  const unsigned self = lane_id();
  const unsigned src = ((self & (w - 1u)) < delta) ? self : self - delta;
  return w <= 32u ? read_lane_in_warp(var, src) : read_lane(var, src);
}

/* __shfl_down: lane + delta; a lane whose source would lie beyond its segment keeps its value. */
template <class T>
__device__ inline T shfl_down(T var, unsigned delta, int width = PORTER_HOC_WAVE_SIZE) {
  const unsigned w = segment(width);
  const unsigned self = lane_id();
  const unsigned src = ((self & (w - 1u)) + delta >= w) ? self : self + delta;
  return w <= 32u ? read_lane_in_warp(var, src) : read_lane(var, src);
}

/* __shfl_xor: lane ^ mask; a source at or beyond the end of the caller's segment gives the
 * caller's own value (a lane mask below `width` always stays inside the segment). */
template <class T>
__device__ inline T shfl_xor(T var, int lane_mask, int width = PORTER_HOC_WAVE_SIZE) {
  const unsigned w = segment(width);
  const unsigned self = lane_id();
  unsigned src = self ^ static_cast<unsigned>(lane_mask);
  if (src >= ((self + w) & ~(w - 1u))) src = self;
  const bool in_warp = w <= 32u || static_cast<unsigned>(lane_mask) < 32u;
  return in_warp ? read_lane_in_warp(var, src) : read_lane(var, src);
}

/* 64-bit ballot: bit i set when lane i is active and its predicate is non-zero. */
__device__ inline unsigned long long ballot(int predicate) {
  WaveCall c;
  const unsigned mine = porter_hoc_cuda_ballot_sync(c.live_mine(), predicate);
  c.publish(0u, mine);
  const unsigned long long r = c.words() & c.live();
  c.finish();
  return r;
}

__device__ inline unsigned long long activemask() {
  WaveCall c;
  c.publish(0u);
  const unsigned long long r = c.live();
  c.finish();
  return r;
}

__device__ inline int any(int predicate) { return ballot(predicate) != 0ull; }

/* True when the predicate holds on every active lane. */
__device__ inline int all(int predicate) {
  WaveCall c;
  const unsigned mine = porter_hoc_cuda_ballot_sync(c.live_mine(), predicate);
  c.publish(0u, mine);
  const int r = (c.words() & c.live()) == c.live();
  c.finish();
  return r;
}

/* ---- *_sync forms: 64-bit masks, checked at compile time as ROCm 6.3 does ---- */

/* ROCm 6.3 rejects a mask whose type is not a 64-bit integer, because CUDA's habitual
 * 0xffffffff names only lanes 0-31 of a wave64. The message is the one ROCm prints. */
template <class MaskT>
__device__ constexpr bool check_mask() {
  static_assert(std::is_integral<MaskT>::value && sizeof(MaskT) == 8,
                "The mask must be a 64-bit integer. Implicitly promoting a smaller integer is "
                "almost always an error.");
  return true;
}

/* The masked shuffles move data exactly as the unmasked ones; the mask names the lanes
 * taking part, which under the contract above is every live lane. */
template <class MaskT, class T>
__device__ inline T shfl_sync(MaskT mask, T var, int src_lane, int width = PORTER_HOC_WAVE_SIZE) {
  check_mask<MaskT>();
  (void)mask;
  return shfl(var, src_lane, width);
}
template <class MaskT, class T>
__device__ inline T shfl_up_sync(MaskT mask, T var, unsigned delta, int width = PORTER_HOC_WAVE_SIZE) {
  check_mask<MaskT>();
  (void)mask;
  return shfl_up(var, delta, width);
}
template <class MaskT, class T>
__device__ inline T shfl_down_sync(MaskT mask, T var, unsigned delta, int width = PORTER_HOC_WAVE_SIZE) {
  check_mask<MaskT>();
  (void)mask;
  return shfl_down(var, delta, width);
}
template <class MaskT, class T>
__device__ inline T shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = PORTER_HOC_WAVE_SIZE) {
  check_mask<MaskT>();
  (void)mask;
  return shfl_xor(var, lane_mask, width);
}

template <class MaskT>
__device__ inline unsigned long long ballot_sync(MaskT mask, int predicate) {
  check_mask<MaskT>();
  return ballot(predicate) & static_cast<unsigned long long>(mask);
}
template <class MaskT>
__device__ inline int any_sync(MaskT mask, int predicate) {
  check_mask<MaskT>();
  return (ballot(predicate) & static_cast<unsigned long long>(mask)) != 0ull;
}
/* True when the predicate holds on every active lane named in the mask. */
template <class MaskT>
__device__ inline int all_sync(MaskT mask, int predicate) {
  check_mask<MaskT>();
  WaveCall c;
  const unsigned mine = porter_hoc_cuda_ballot_sync(c.live_mine(), predicate);
  c.publish(0u, mine);
  const unsigned long long named = c.live() & static_cast<unsigned long long>(mask);
  const int r = (c.words() & named) == named;
  c.finish();
  return r;
}

/* Lanes of the wave (bit i = lane i) whose 32-bit word equals the caller's, and the live lanes. */
__device__ inline unsigned long long lanes_equal(unsigned word, unsigned long long* live) {
  WaveCall c;
  c.publish(word);
  unsigned long long r = 0;
  for (unsigned l = 0; l < kWaveLanes; ++l)
    if (((c.live() >> l) & 1ull) && c.value_of(l) == word) r |= 1ull << l;
  *live = c.live();
  c.finish();
  return r;
}
template <class T>
__device__ inline unsigned long long lanes_with_value(T value, unsigned long long* live) {
  const unsigned long long bits = to_bits(value);
  unsigned long long r = lanes_equal(static_cast<unsigned>(bits), live);
  if (sizeof(T) > 4) {
    unsigned long long live_hi;
    r &= lanes_equal(static_cast<unsigned>(bits >> 32), &live_hi);
  }
  return r;
}

/* Lanes named in the mask (and active) whose value equals the caller's. */
template <class MaskT, class T>
__device__ inline unsigned long long match_any_sync(MaskT mask, T value) {
  check_mask<MaskT>();
  unsigned long long live;
  const unsigned long long same = lanes_with_value(value, &live);
  return same & live & static_cast<unsigned long long>(mask);
}

/* The named active lanes when they all hold the same value (and *pred = 1), else 0. */
template <class MaskT, class T>
__device__ inline unsigned long long match_all_sync(MaskT mask, T value, int* pred) {
  check_mask<MaskT>();
  unsigned long long live;
  const unsigned long long same = lanes_with_value(value, &live);
  const unsigned long long named = live & static_cast<unsigned long long>(mask);
  const bool all_same = (same & named) == named;
  *pred = all_same ? 1 : 0;
  return all_same ? named : 0ull;
}

/* A barrier for the caller's wave only (HIP's __syncwarp; AMD's wave barrier). The mask,
 * if any, is accepted and ignored: the contract makes every live lane take part. */
__device__ inline void wave_sync() {
  const WavePos p = wave_pos();
  wave_barrier(p, live_lanes_of_warp(p));
}
template <class MaskT>
__device__ inline void wave_sync(MaskT) { wave_sync(); }

}  // namespace porter_hoc
