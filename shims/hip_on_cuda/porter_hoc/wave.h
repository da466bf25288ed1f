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
 *   - The two warps synchronise at the wave's barrier (below, "Wave barrier"). A wave of one
 *     warp (the tail of a block whose size is not a multiple of 64) synchronises on a barrier
 *     of its own warp, as a warp whose partner is gone does.
 *   - Lanes that have exited (returned) are inactive, as on AMD: a read from an inactive lane
 *     returns 0 (ds_bpermute_b32 semantics: "reading from inactive lanes returns 0", Rust
 *     core::arch::amdgpu::ds_bpermute docs), they contribute 0 to ballots and are excluded
 *     from __activemask. Liveness of a warp's lanes is taken with __ballot_sync over the lanes
 *     that exist, which exited threads do not block (CUDA Programming Guide, warp vote).
 *
 * Wave barrier. A hardware named barrier (`barrier.sync id, 64`) cannot serve: PTX releases a
 * barrier held up by exiting threads only for barriers of all threads of the CTA (PTX ISA,
 * "exit"), so a wave one of whose warps returned - on AMD simply a wave with half its lanes
 * inactive, e.g. an edge tile that one warp leaves - would wait forever. The barrier is the
 * wave's mbarrier (PTX's transaction barrier in shared memory, sm_80+; wave_round below):
 * 64 arrivals per phase, 32 from each warp (one per live lane; the warp's leader arrives once
 * more for each of its inactive lanes), each lane waiting on the token of its own arrival.
 * Unlike a named barrier an mbarrier can be told that a warp is gone (`arrive_drop`: one
 * arrival now and one fewer expected in every later phase), and unlike a word in shared
 * memory that the other warp polls (the protocol until session 3 of 2026-12-01) the waiting
 * is done by the barrier unit: ~52 ns per barrier of a lone loop on the H200 against ~105 ns
 * for the best polled flag (bench/hip_on_cuda_protocols.cu). Each warp keeps an arrival word
 * (its barrier count, and flags), stored by its leader before it arrives, and publishes, for
 * every barrier, a warp word (its live lanes and a 32-bit word such as its ballot) that the
 * partner reads after the wait. The wait ends in one of three ways:
 *   - the partner arrives;
 *   - the partner has exited: every lane it has has left the kernel. Nothing on an NVIDIA GPU
 *     tells a warp that another has exited (no special register or instruction reads another
 *     warp's state), so the kernel tells it: porter's hip-on-cuda hipcc starts every kernel it
 *     compiles with an exit guard (KernelExit below; porter/toolchains/hoc_guard.py inserts
 *     it), whose destructor - run on every return path of every lane - sets the lane's bit in
 *     its warp's exited mask; the last lane of a warp to exit zeroes the warp's word of its
 *     next barrier and drops the warp's 32 arrivals from the mbarrier, so the partner's phase
 *     (this one and every later one) completes with its own arrivals, without any clock. A
 *     warp whose lanes all exited before it ever used the barrier is seen in the mask;
 *   - neither within PORTER_HOC_ABSENT_MS (default 100) of %globaltimer: a kernel built without
 *     the guard (plain nvcc, a kernel written by a macro, a kernel in a header), where an exit
 *     leaves no mark, or a partner that is alive elsewhere (a collective under a branch that
 *     splits the wave, a half held at __syncthreads). The waiting warp gives the partner up
 *     and goes on alone: it zeroes the partner's warp words, marks its own word absent,
 *     arrives in the partner's place until the phase completes, and synchronises on a barrier
 *     of its own from then on (wait_look, go_alone). That costs one wait per such wave and
 *     block. If the given-up warp was alive, its arrival falls into the next phase of the
 *     wave's barrier, which nobody completes, and its leader's look at the partner's word
 *     during the wait finds the mark and traps with a message naming the block and the wave
 *     (or, had it arrived at the very phase of the give-up, the giving-up warp traps): the run
 *     fails loudly, never with a silent wrong value and never with a hang.
 * No collective tests the partner's state (session 6): a partner that did not take part in a
 * barrier - exited, given up, or absent (a one-warp wave) - reads as a warp word of no live
 * lanes, which masks its slots and its ballot like any inactive lanes. Who writes that zero,
 * and why it cannot race with a live partner, is in wave_round's comment (the exit guard for
 * the barrier after the exit, the reader's predicated "propagation" store for the later ones,
 * go_alone for a give-up). The fast path is one test - the own arrival word is this block's,
 * ready, not alone, and all 32 lanes are live - and one branch; the first barrier, partial
 * warps and a warp alone are out of line (barrier_setup, round_cold).
 * The mbarrier orders every arrival of a phase, so "the partner arrived" and "the partner was
 * given up" cannot both hold unnoticed (wait_look). Shared memory is not initialised at
 * launch: warp 0 of a wave initialises the mbarrier at its first barrier in the block and
 * publishes kArrivalReady by atomic exchange; warp 1 waits for that bit before it arrives
 * (ready_wave, out of line). Collectives whose sources all lie in the caller's own warp
 * (segments of <= 32 lanes) do not use the barrier at all, so a 16-lane reduction under
 * `if (threadIdx.y == 0)` never waits.
 *   An arrival word carries a tag of its block and launch (%gridid, the launch's number in the
 *   context, and the linear block index) and a word with another tag reads as "no barrier
 *   passed yet". Word layout: bits 63..42 %gridid mod 2^22, 41..10 the block index mod 2^32,
 *   9 the ready bit (this warp has set up its barrier), 8 the absent bit (this warp goes on
 *   alone, on its own mbarrier: it is the only warp of its wave, or its partner never used the
 *   barrier and exited, or was given up), 7 the guarded bit (the kernel has the exit guard, so
 *   this warp's exited mask is valid), 6 the given-up bit (set by warp 1 when warp 0 never
 *   initialised the barrier), 5..0 the count mod 64 (the two warps of a wave are never more
 *   than one barrier apart; the mbarrier's phase is the count minus one).
 *   History (docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md): session 1 polled arrival
 *   words with a Dekker fence (fence.sc.cta) on every arrival; session 2 made the arrival an
 *   atomic exchange and added the exit guard; session 3 replaced the polling by the mbarrier
 *   (collectives 25.6-29.2x -> 21.2-25.2x a native shuffle); session 4 cut the emulation's
 *   own work around the barrier (one test of the own word on the fast path, everything else
 *   out of line; the partner's word, its warp word and the source slot read in one round trip
 *   after the wait instead of two; the buffer picked from two addresses kept in registers):
 *   collectives 21.2-25.2x -> 15.6-19.1x; session 5 made the wait a warp vote with the first
 *   try_wait peeled off the loop, in place of a per-lane loop and a __syncwarp (2-4%). Moving
 *   the test of the partner's word from after the wait to before the arrival (one 16-byte load
 *   of both words) was measured 17% slower: the partner waits for everything a warp does
 *   before it arrives. Session 6 removed the per-collective test of the partner's word (the
 *   partner's warp word reads 0 when it did not take part, see above) and made the fast path
 *   a whole warp's (one test, one branch): 14.9-18.9x -> 10.0-11.2x. Session 8 measured and
 *   dropped: the wait on the phase's parity instead of the arrival's token (ballot 5% slower),
 *   the wave's live lanes and words as 32-bit halves (ballot 3.5% slower with the vote wait),
 *   the ballot voted before the fast-path test (ballot 13% slower). Session 9 moved the wait's retry
 *   loop out of line (wait_rest): 10.0-11.3x -> 9.1x / 9.4-9.5x / 10.7-10.8x (shfl_xor(32) / 64-lane
 *   shfl_down / ballot).
 *   Named barriers after the handshake
 *   were measured and not kept (slower, 12 more registers); a tagged-data protocol (each lane's
 *   value stored with its collective's number, polled by the reader: no barrier at all) was
 *   measured at 13.7x in isolation (bench/hip_on_cuda_protocols.cu) but needs block-unique
 *   tags that 32 spare bits of a 64-bit slot cannot hold soundly (stale slots of earlier
 *   blocks of the same kernel carry the same numbers).
 *
 * Contract (what ported code must satisfy here; violations are undefined: wrong values or a
 * trap with a message)
 *   1. Every live lane of the wave calls the collective together, as on AMD hardware where the
 *      wave executes in lockstep. A collective under a branch that splits a wave - e.g.
 *      `if (threadIdx.x / 32 == 0) v = __shfl_down(v, 1);`, a wave32 idiom - runs after the
 *      bounded wait with the other half inactive (as on AMD); if that half calls a collective
 *      later, it traps. Two halves calling two different collectives at the same time pair up
 *      wrongly (undiagnosed).
 *   2. A warp of the wave that returns entirely is seen exited at the other warp's next
 *      collective, at once in a kernel with the exit guard, after the bounded wait in one
 *      without. A warp that is alive but spends longer than PORTER_HOC_ABSENT_MS between two
 *      collectives while its partner waits is given up, and traps at its next collective:
 *      raise the define for such kernels.
 *   3. Wave-synchronous code that communicates through LDS without a barrier, relying on the
 *      wave's lockstep, is not emulated: the two warps are not in lockstep. Use __syncthreads,
 *      or __builtin_amdgcn_wave_barrier / __syncwarp, which map to the wave barrier here.
 *
 * Cost: 9.4 KiB of static shared memory per block in kernels that use a collective (two
 * buffers x 16 waves x 64 lanes x 4 bytes, plus the per-warp words and the 16 + 32
 * mbarriers), counted against the 48 KiB static limit and the opt-in maximum of dynamic shared
 * memory; 640 bytes (the arrival words, exited masks, wave mbarriers and the warp words'
 * address) in every kernel with the exit guard. A collective costs one wave barrier (two for a 64-bit value); a shuffle whose
 * sources all lie in the caller's 32-lane half (a segment of <= 32 lanes, a lane mask < 32) is
 * CUDA's own warp shuffle and waits for nobody.
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
  return p;
}

/* ---- the wave barrier (see "Wave barrier" above) ---- */

constexpr unsigned long long kArrivalCount = 0x3full;    // bits 5..0: barriers passed, mod 64
constexpr unsigned long long kArrivalGivenUp = 0x40ull;  // bit 6: the partner went on without this warp
constexpr unsigned long long kArrivalGuarded = 0x80ull;  // bit 7: the kernel has the exit guard
constexpr unsigned long long kArrivalAbsent = 0x100ull;  // bit 8: "I go on without my partner" (final)
constexpr unsigned long long kArrivalReady = 0x200ull;   // bit 9: this warp uses the wave's mbarrier
constexpr unsigned long long kArrivalTag = ~0x3ffull;    // bits 63..10
constexpr unsigned long long kAbsentNs = 1000000ull * PORTER_HOC_ABSENT_MS;

/* The arrival words, one per warp, in their own shared variable: the MFMA emulation
 * (porter_hoc/mfma.h) synchronises through them without paying for WaveScratch's buffers. */
__device__ inline unsigned long long (&arrivals())[kMaxWaves][2] {
  __shared__ unsigned long long words[kMaxWaves][2];
  return words;
}

/* The exited lanes of each warp (bit i = lane 32*half+i), written by the exit guard
 * (KernelExit below) and valid only while the warp's arrival word carries kArrivalGuarded:
 * shared memory is not initialised, and the guard clears the word before it sets that bit. */
__device__ inline unsigned (&exits())[kMaxWaves][2] {
  __shared__ unsigned words[kMaxWaves][2];
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
 * memory model, CTA scope). Every change of an arrival word that another warp may race with
 * is an atomic read-modify-write of that one word, so the races resolve in the word's own
 * order (coherence) and no fence is needed. */
__device__ inline unsigned shared_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ inline unsigned long long ld_relaxed64(unsigned addr) {
  unsigned long long v;
  asm volatile("ld.relaxed.cta.shared.u64 %0, [%1];" : "=l"(v) : "r"(addr) : "memory");
  return v;
}
__device__ inline unsigned ld_relaxed32(unsigned addr) {
  unsigned v;
  asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ inline unsigned long long ld_acquire64(unsigned addr) {
  unsigned long long v;
  asm volatile("ld.acquire.cta.shared.u64 %0, [%1];" : "=l"(v) : "r"(addr) : "memory");
  return v;
}
__device__ inline unsigned ld_acquire32(unsigned addr) {
  unsigned v;
  asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ inline void st_relaxed(unsigned addr, unsigned long long v) {
  asm volatile("st.relaxed.cta.shared.u64 [%0], %1;" ::"r"(addr), "l"(v) : "memory");
}
/* Atomic exchange that releases the calling thread's (and, cumulatively, its warp's) writes. */
__device__ inline unsigned long long exch_release(unsigned addr, unsigned long long v) {
  unsigned long long old;
  asm volatile("atom.release.cta.shared.exch.b64 %0, [%1], %2;" : "=l"(old) : "r"(addr), "l"(v) : "memory");
  return old;
}
__device__ inline unsigned long long cas_acq_rel(unsigned addr, unsigned long long expected,
                                                 unsigned long long desired) {
  unsigned long long old;
  asm volatile("atom.acq_rel.cta.shared.cas.b64 %0, [%1], %2, %3;"
               : "=l"(old) : "r"(addr), "l"(expected), "l"(desired) : "memory");
  return old;
}
__device__ inline unsigned or_acq_rel(unsigned addr, unsigned bits) {
  unsigned old;
  asm volatile("atom.acq_rel.cta.shared.or.b32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(bits) : "memory");
  return old;
}
/* Plain (weak) shared stores, ordered by the release arrival that follows them. */
__device__ inline void st_weak32(unsigned addr, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ inline void st_weak64(unsigned addr, unsigned long long v) {
  asm volatile("st.shared.u64 [%0], %1;" ::"r"(addr), "l"(v) : "memory");
}
/* __syncwarp over `mask`; the constant full mask when the whole warp takes part. */
__device__ inline void sync_lanes(unsigned mask) {
  if (mask == 0xffffffffu)
    porter_hoc_cuda_syncwarp(0xffffffffu);
  else
    porter_hoc_cuda_syncwarp(mask);
}

/* CUDA's ballot over `mask` (the live lanes of the calling warp), with the constant full mask
 * when the whole warp takes part. For a vote.sync whose mask is in a register ptxas checks the
 * mask against the converged lanes first (REDUX.OR, R2UR and a divergence branch before the
 * VOTE, sm_90 SASS); with the constant mask that check is one uniform branch. Used by the
 * ballots (before their arrival: on the partner's critical path too); measured 0.6% on the
 * ballot loop (session 5), so it is not what makes a ballot slower than a shuffle. */
__device__ inline unsigned warp_ballot(unsigned mask, int predicate) {
  return porter_hoc_cuda_ballot_sync(mask, predicate);
}
/* The same for "the predicate holds on every lane of `mask`" (the wave barrier's wait). */
__device__ inline bool warp_all(unsigned mask, bool predicate) {
  return mask == 0xffffffffu ? porter_hoc_cuda_all_sync(0xffffffffu, predicate)
                             : porter_hoc_cuda_all_sync(mask, predicate);
}

/* The calling warp was given up by its partner (presumed exited), but is running: say so and stop. */
__device__ __noinline__ __attribute__((noreturn)) inline void presumed_exited_but_alive(unsigned wave, unsigned half) {
  // Called by every live lane of the warp (a vote decides, see wait_look); one prints.
  if (threadIdx.x % 32u == static_cast<unsigned>(__ffs(porter_hoc_cuda_activemask()) - 1))
  printf("porter hip_on_cuda: block (%u,%u,%u) wave %u: lanes %u-%u reached a wave collective "
         "after lanes %u-%u had waited %u ms for them and gone on as if they had exited. Both "
         "halves of a wave must call the same collectives: a collective under a branch that "
         "splits the wave, or a half that runs longer than PORTER_HOC_ABSENT_MS between two "
         "collectives - see porter_hoc/wave.h, Contract\n",
         blockIdx.x, blockIdx.y, blockIdx.z, wave, 32 * half, 32 * half + 31,
         32 * (half ^ 1u), 32 * (half ^ 1u) + 31, static_cast<unsigned>(PORTER_HOC_ABSENT_MS));
  __trap();
}

/* Whether the partner's arrival word `theirs`, read after a barrier whose own word is `next`,
 * says the partner arrived at it: a word of this block and launch (tag) whose count is this
 * barrier's (stored before it arrived) or the next one's (it passed this barrier and stored its
 * next arrival before this warp looked). It cannot be further ahead: the next barrier waits for
 * this warp. Asked only once, in wait_look, right after a give-up (a count mod 64 compared
 * again later could match a stale word). */
__device__ inline bool at_barrier(unsigned long long theirs, unsigned long long next) {
  return ((theirs ^ next) & kArrivalTag) == 0ull &&
         ((static_cast<unsigned>(theirs) - static_cast<unsigned>(next)) & kArrivalCount) <= 1u;
}

/* `word` with its count advanced by one (mod 64), tag and flags kept. */
__device__ inline unsigned long long count_bumped(unsigned long long word) {
  return (word & ~kArrivalCount) | ((word + 1ull) & kArrivalCount);
}

/* The lanes of warp `half` of wave `wave` that exist (a block's size need not be a multiple
 * of 64). */
__device__ inline unsigned lanes_of(unsigned wave, unsigned half, unsigned nthreads) {
  const unsigned in_wave = min(kWaveLanes, nthreads - wave * kWaveLanes);
  const unsigned in_warp = in_wave > 32u * half ? min(32u, in_wave - 32u * half) : 0u;
  return in_warp == 32u ? 0xffffffffu : ((1u << in_warp) - 1u);
}

/* The wave's hardware transaction barrier (PTX mbarrier, sm_80+), expecting 64 arrivals per
 * phase, 32 from each warp (wave_round). Shared memory is not initialised: warp 0 of the
 * wave initialises it at its first barrier in a block (ready_wave below) and says so with
 * kArrivalReady in its arrival word; warp 1 uses it only after it has seen that bit. */
__device__ inline unsigned long long (&wave_mbarriers())[kMaxWaves] {
  __shared__ unsigned long long words[kMaxWaves];
  return words;
}
/* Each warp's own mbarrier for when it synchronises alone (kArrivalAbsent: a one-warp wave, or
 * a warp whose partner exited before it ever used the wave's barrier or was given up): 32
 * arrivals per phase, initialised by the warp's leader when it goes alone (go_alone). A
 * given-up partner that is alive after all arrives at the wave's barrier, which nobody
 * completes any more, and traps there (wait_look); it never touches this one. */
__device__ inline unsigned long long (&alone_mbarriers())[kMaxWaves][2] {
  __shared__ unsigned long long words[kMaxWaves][2];
  return words;
}
/* Each warp's word of each barrier ("warp word"): its live lanes (bits 0-31) and its 32-bit
 * word (a warp's ballot, say; bits 32-63), stored by every lane of the warp before its
 * arrival (one store instruction) and read by the partner after the wait, in two buffers by
 * the barrier count's parity like the slots (WaveScratch). A partner that did not take part
 * in a barrier reads here as a word of no live lanes (0): see "Wave barrier" above for who
 * writes that 0 and when. Apart from WaveScratch: the MFMA emulation and the bare wave barrier
 * use these words without the slots. */
__device__ inline unsigned long long (&warp_words())[2][kMaxWaves][2] {
  __shared__ unsigned long long words[2][kMaxWaves][2];
  return words;
}
/* Byte distance between the two buffers of warp_words(). */
constexpr unsigned kWarpWordsBuffer = kMaxWaves * 2u * 8u;
/* The shared address of warp_words(), stored by each warp's leader at the warp's first barrier
 * (before kArrivalReady): the exit guard's destructor, which must not name warp_words()
 * (every guarded kernel would allocate it), zeroes the exiting warp's next word through it. */
__device__ inline unsigned (&warp_words_at())[kMaxWaves][2] {
  __shared__ unsigned words[kMaxWaves][2];
  return words;
}
/* `count` arrivals (release); returns the token of the phase they went to. */
__device__ inline unsigned long long mbar_arrive(unsigned addr, unsigned count) {
  unsigned long long state;
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(addr), "r"(count) : "memory");
  return state;
}
/* Whether the phase of the token has completed (try_wait may suspend the thread for a while,
 * until the phase completes or a time limit of the hardware ends). */
__device__ inline bool mbar_try_wait(unsigned addr, unsigned long long state) {
  unsigned done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done) : "r"(addr), "l"(state) : "memory");
  return done != 0u;
}
/* Whether the phase of the given parity has completed, without suspending the thread. */
__device__ inline bool mbar_test_wait_parity(unsigned addr, unsigned parity) {
  unsigned done;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done) : "r"(addr), "r"(parity) : "memory");
  return done != 0u;
}
__device__ inline void mbar_init(unsigned addr, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(count) : "memory");
}

/* The calling warp goes on alone from now on (cold; its leader): its own mbarrier is made
 * ready for 32 arrivals per phase, and the partner's warp words of both buffers read "no live
 * lanes". Called where no lane of this warp still reads a partner word (at its first barrier,
 * or in wait_look, when every lane has arrived at the barrier in progress). A partner that
 * exited (or never existed) writes them no more; one that was given up but is alive may still
 * store its word of the barrier in progress, and then traps (wait_look): a run that reads
 * such a word fails loudly. The caller publishes kArrivalAbsent with the next arrival word. */
__device__ inline void go_alone(unsigned wave, unsigned half) {
  mbar_init(shared_addr(&alone_mbarriers()[wave][half]), 32u);
  st_relaxed(shared_addr(&warp_words()[0][wave][half ^ 1u]), 0ull);
  st_relaxed(shared_addr(&warp_words()[1][wave][half ^ 1u]), 0ull);
}

/* The first barrier of a warp in this block (its word has no kArrivalReady): out of line, run
 * once per warp by all its live lanes (`live`), its leader doing every store and atomic, the
 * decisions reaching the others by votes (see wait_look for why). Warp 0 of a two-warp wave initialises the wave's mbarrier and
 * publishes kArrivalReady by atomic exchange (release: the initialisation before the bit), so
 * it also learns whether warp 1 gave it up already; warp 1 waits for that bit (acquire), with
 * the exited mask and the bounded wait as in the steady state, and then sets its own. The warp
 * of a one-warp wave (the tail of a block) has no partner: it goes alone at once.
 * Returns the low bits to add to the warp's next arrival word: kArrivalReady, with
 * kArrivalAbsent when the warp goes on alone. */
__device__ __forceinline__ unsigned ready_wave(unsigned live, bool leader, unsigned wave, unsigned half,
                                              unsigned nwarps, unsigned target, unsigned long long tag) {
  const unsigned mine = shared_addr(&arrivals()[wave][half]);
  const unsigned other = shared_addr(&arrivals()[wave][half ^ 1u]);
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  if (leader) warp_words_at()[wave][half] = shared_addr(&warp_words()[0][0][0]);
  // Every test below a vote, though its value is the warp's: a call (the trap) under a branch
  // that ptxas cannot see as the warp's puts a YIELD in every loop around a collective.
  if (porter_hoc_cuda_any_sync(live, nwarps == 1u)) {
    if (leader) go_alone(wave, half);
    return kArrivalReady | kArrivalAbsent;
  }
  if (porter_hoc_cuda_any_sync(live, half == 0u)) {
    bool given_up = false;
    if (leader) {
      mbar_init(shared_addr(&wave_mbarriers()[wave]), kWaveLanes);
      const unsigned long long old = exch_release(mine, tag | (target & kArrivalGuarded) | kArrivalReady |
                                                            ((target - 1u) & kArrivalCount));
      given_up = (old & kArrivalTag) == tag && (old & kArrivalGivenUp);
    }
    if (porter_hoc_cuda_any_sync(live, given_up)) presumed_exited_but_alive(wave, half);
    return kArrivalReady;
  }
  constexpr unsigned kSpin = 0u, kTrap = 1u, kReady = 2u, kAlone = 3u;
  unsigned long long start = 0;
  for (unsigned spins = 0;; ++spins) {
    unsigned act = kSpin;
    bool nap = false;
    if (leader) {
      const unsigned long long w = ld_acquire64(other);
      const bool ours = (w & kArrivalTag) == tag;
      bool again = false;
      if (ours && (w & kArrivalAbsent)) {
        act = kTrap;  // it went on alone
      } else if (ours && (w & kArrivalReady)) {
        st_relaxed(mine, tag | (target & kArrivalGuarded) | kArrivalReady | ((target - 1u) & kArrivalCount));
        act = kReady;
      } else if (ours && (w & kArrivalGuarded)) {  // a guarded kernel: has warp 0 exited?
        const unsigned lanes = lanes_of(wave, 0u, nthreads);
        if ((ld_acquire32(shared_addr(&exits()[wave][0])) & lanes) == lanes) {
          // It cannot publish kArrivalReady any more (its lanes exited); a last look for one it
          // published before.
          if (ld_acquire64(other) & kArrivalReady) {
            again = true;
          } else {
            go_alone(wave, half);
            act = kAlone;
          }
        }
      }
      if (act == kSpin && !again && (spins & 63u) == 63u) {
        const unsigned long long now = globaltimer_ns();
        if (start == 0) start = now;
        if (now - start > kAbsentNs) {
          // Give warp 0 up in its own word (it has not initialised the barrier, so the barrier
          // cannot decide): its exchange at kArrivalReady returns the mark and it traps.
          if (cas_acq_rel(other, w, (ours ? w : tag) | kArrivalGivenUp) == w) {
            go_alone(wave, half);
            act = kAlone;
          } else {
            start = 0;
          }
        }
        nap = act == kSpin;
      }
    }
    if (porter_hoc_cuda_any_sync(live, act == kTrap)) presumed_exited_but_alive(wave, half);
    if (porter_hoc_cuda_any_sync(live, act == kReady)) return kArrivalReady;
    if (porter_hoc_cuda_any_sync(live, act == kAlone)) return kArrivalReady | kArrivalAbsent;
    // The whole warp sleeps (a __nanosleep under the leader's branch alone puts a YIELD in every
    // loop around a collective).
    if (porter_hoc_cuda_any_sync(live, nap)) __nanosleep(256);
  }
}

/* The thread's linear index and the block's size, read anew (volatile): what the guard
 * computes must not be shared with, and kept in registers for, the kernel's body. */
__device__ inline unsigned fresh_thread_index(unsigned* nthreads) {
  unsigned tx, ty, tz, nx, ny, nz;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
  asm volatile("mov.u32 %0, %%tid.y;" : "=r"(ty));
  asm volatile("mov.u32 %0, %%tid.z;" : "=r"(tz));
  asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(nx));
  asm volatile("mov.u32 %0, %%ntid.y;" : "=r"(ny));
  asm volatile("mov.u32 %0, %%ntid.z;" : "=r"(nz));
  if (nthreads) *nthreads = nx * ny * nz;
  return tx + nx * (ty + ny * tz);
}

/* The cold part of a wait at the wave's mbarrier, at the warp's 3rd, 11th, 19th ... unsuccessful
 * vote (session 10: the whole warp calls it - its live lanes `live`, converged - and the leader
 * reads, decides and does every store and arrival, the others learning its decisions by votes;
 * with wait_cold called by the leader alone, and ready_wave likewise, ptxas put a YIELD at the
 * head of every loop around a collective): the partner went on alone (this warp was given up: trap), the partner
 * exited (a guarded kernel whose partner's lanes all exited before it used the barrier; a warp
 * that exits after using it drops its arrivals, see KernelExit, and the phase completes by
 * itself), or PORTER_HOC_ABSENT_MS passed (a kernel without the guard, or a partner that is
 * alive elsewhere). It reads its position and this warp's word at this barrier (`next`, which
 * the leader stored before it arrived) anew, so the wait loop keeps few registers live.
 * `start`: the first look at %globaltimer in units of 1024 ns (0 before it). Returns the new `start`. A warp that
 * synchronises alone (kArrivalAbsent) waits only for its own lanes: nothing to decide.
 *
 * Going on alone is always: go_alone (the warp's own mbarrier ready, the partner's warp words
 * zero), kArrivalAbsent into this warp's own word, then arrivals in the partner's place
 * (release: they publish all of that) until the phase completes - so every lane of this warp,
 * waiting on its token, goes on, reads the partner's warp word of this barrier as "no live
 * lanes", and from its next barrier on synchronises on its own mbarrier. The wave's mbarrier
 * orders the arrivals of a phase: if the partner's came first, the phase was complete and a
 * stand-in belongs to the next phase; if the stand-ins came first, the partner's (if they ever
 * come) belong to the next phase, which nobody completes: the partner's leader finds
 * kArrivalAbsent here in its own wait_look and traps. For the timer, which may fire while a
 * slow partner is arriving, the leader then looks at the partner's arrival word (acquire,
 * after the phase completed): a word at this barrier means the partner arrived at this very
 * phase - the two warps would disagree, so it stops loudly (the partner's warp word, which it
 * stored before arriving, may then have replaced the zero: the run fails anyway).
 *
 * How many stand-ins: a partner whose lanes have all exited (the exited mask) can only arrive
 * once more, all 32 at once (its last lane's arrive_drop), so 32 stand-ins at once are safe -
 * whichever of the two comes first completes the phase, the other falls into the next one. A
 * partner presumed gone by the timer may be alive and arriving lane by lane, and 32 stand-ins
 * landing between its lanes' arrivals would over-fill the phase (more arrivals than it has
 * pending: an undefined mbarrier state). So after the timer the stand-ins go one at a time,
 * each only after a test_wait found the phase still incomplete: at most one of them (the one
 * racing the partner's last lane) falls into the next phase, which is never completed. (Left
 * open: a partner alive elsewhere in a guarded kernel whose last lane exits, dropping 32 at
 * once, within the few hundred nanoseconds of these single stand-ins after a 100 ms wait.) */
__device__ __forceinline__ unsigned wait_look(unsigned live, bool leader, unsigned start) {
  const unsigned t = fresh_thread_index(nullptr);
  const unsigned wave = t / kWaveLanes, half = (t / 32u) & 1u;
  const unsigned mine = shared_addr(&arrivals()[wave][half]);
  const unsigned other = shared_addr(&arrivals()[wave][half ^ 1u]);
  const unsigned bar = shared_addr(&wave_mbarriers()[wave]);
  constexpr unsigned kKeep = 0u, kTrap = 1u, kStandIns = 2u;
  unsigned act = kKeep;
  unsigned long long next = 0;
  if (leader) {
    next = ld_relaxed64(mine);  // the leader's own store before its arrival
    if (!(next & kArrivalAbsent)) {
      const unsigned long long w = ld_acquire64(other);
      const bool ours = ((w ^ next) & kArrivalTag) == 0ull;
      if (ours && (w & kArrivalAbsent)) {
        act = kTrap;  // it went on alone
      } else {
        bool timed_out = true, go = true;
        if (ours && (w & kArrivalGuarded)) {  // a guarded kernel: have all the partner's lanes exited?
          const unsigned lanes = lanes_of(wave, half ^ 1u, blockDim.x * blockDim.y * blockDim.z);
          timed_out = (ld_acquire32(shared_addr(&exits()[wave][half ^ 1u])) & lanes) != lanes;
        }
        if (timed_out) {  // alive (or a kernel without the guard): the bounded wait
          const unsigned now = static_cast<unsigned>(globaltimer_ns() >> 10) | 1u;  // never 0
          if (start == 0 || now - start > 0x80000000u) {  // first look (or the timer went back)
            start = now;
            go = false;
          } else if (now - start <= static_cast<unsigned>(kAbsentNs >> 10)) {
            go = false;
          }
        }
        if (go) {
          go_alone(wave, half);
          st_relaxed(mine, next | kArrivalAbsent);
          if (!timed_out) (void)mbar_arrive(bar, 32u);
          else act = kStandIns;
        }
      }
    }
  }
  if (porter_hoc_cuda_any_sync(live, act == kTrap)) presumed_exited_but_alive(wave, half);
  if (porter_hoc_cuda_any_sync(live, act == kStandIns)) {
    const unsigned parity = (static_cast<unsigned>(next) - 1u) & 1u;  // this barrier's phase: count - 1
    // The leader's loop "while the phase is incomplete, one more stand-in", its exit voted (written
    // with the arrival before the vote: the form in which ptxas sees the loop as the warp's).
    bool complete = false;
    for (unsigned k = 0; !complete; ++k) {
      if (leader && k > 0u) (void)mbar_arrive(bar, 1u);
      complete = porter_hoc_cuda_any_sync(live, leader && mbar_test_wait_parity(bar, parity));
    }
    if (porter_hoc_cuda_any_sync(live, leader && at_barrier(ld_acquire64(other), next)))
      presumed_exited_but_alive(wave, half ^ 1u);
  }
  return start;
}

/* The first barrier of a warp in this block (its arrival word is not this block's, or lacks
 * kArrivalReady). Out of line, called by every live lane of the warp with nothing but its live
 * lanes; it reads its position and its arrival word anew (no lane of the warp changes the word
 * before the __syncwarp below), so the call site keeps few registers live. The leader
 * initialises the wave's mbarrier or waits for warp 0 to (ready_wave), and the warp learns the
 * outcome by votes. Returns the warp's next arrival word: this block's tag, the count
 * advanced, kArrivalReady, and kArrivalAbsent when the warp goes on alone. The __syncwarp
 * first: every lane has read the old word before the leader changes it (a lane that read the
 * new one would take the fast path alone). */
__device__ __noinline__ inline unsigned long long barrier_setup(unsigned live) {
  unsigned n;
  const unsigned t = fresh_thread_index(&n);
  const unsigned wave = t / kWaveLanes, half = (t / 32u) & 1u;
  const unsigned in_wave = min(kWaveLanes, n - wave * kWaveLanes);
  const unsigned long long tag = arrival_tag();
  const unsigned long long seen = ld_relaxed64(shared_addr(&arrivals()[wave][half]));  // as the caller read it
  const unsigned long long next = count_bumped(((seen ^ tag) & kArrivalTag) == 0ull ? seen : tag);
  sync_lanes(live);
  const bool leader = t % 32u == static_cast<unsigned>(__ffs(live) - 1);
  return next | ready_wave(live, leader, wave, half, (in_wave + 31u) / 32u, static_cast<unsigned>(next), tag);
}

/* The collective's barrier in every case but the fast one (out of line), after barrier_setup
 * where the warp had not used the barrier yet: a warp with inactive lanes, or a warp that goes
 * on alone (kArrivalAbsent: its own mbarrier). Everything wave_round's fast path does up to and
 * including the wait, for any live mask: the leader (first live lane) stands in for the
 * inactive lanes, the vote runs over the live lanes. `next`: the warp's arrival word of this
 * barrier. Returns it again, read anew after the wait (wait_look may have added
 * kArrivalAbsent; the parity is the same). */
template <bool kData>
__device__ __noinline__ inline unsigned long long round_cold(unsigned live, unsigned long long mine, unsigned value,
                                                             unsigned long long next) {
  const unsigned t = fresh_thread_index(nullptr);
  const unsigned wave = t / kWaveLanes, half = (t / 32u) & 1u, lane = t % kWaveLanes;
  const unsigned own = shared_addr(&arrivals()[wave][half]);
  const bool leader = (t % 32u) == static_cast<unsigned>(__ffs(live) - 1);
  const unsigned buf = static_cast<unsigned>(next) & 1u;
  if (kData) st_weak32(shared_addr(&scratch().slot[buf][wave][lane]), value);
  st_weak64(shared_addr(&warp_words()[buf][wave][half]), mine);
  const unsigned bar = (next & kArrivalAbsent) ? shared_addr(&alone_mbarriers()[wave][half])
                                               : shared_addr(&wave_mbarriers()[wave]);
  if (leader) st_relaxed(own, next);
  const unsigned long long state = mbar_arrive(bar, leader ? 33u - __popc(live) : 1u);
  bool done = warp_all(live, mbar_try_wait(bar, state));
  unsigned start = 0;
  for (unsigned tries = 1; !done; ++tries) {
    if ((tries & 7u) == 3u) start = wait_look(live, leader, start);
    done = warp_all(live, mbar_try_wait(bar, state));
  }
  // The word read anew rather than kept across the wait (registers: this runs inside every
  // collective's call chain); its parity is `next`'s (wait_look may only have added
  // kArrivalAbsent), and every lane's wait acquired the leader's store.
  return ld_relaxed64(own);
}

/* One wave barrier with its exchange of warp words, and (kData) of one 32-bit value per lane:
 * every live lane of the calling warp calls it with the warp's word `mine` (the same in every
 * lane; its live lanes in bits 0-31), and, for kData, its value and the lane `src` (0..63) to
 * read. Returns the partner's warp word of this barrier (0: it did not take part); *got: src's
 * slot (to be masked by the live lanes; a slot of a lane that did not take part may be stale),
 * *buf: the buffer used.
 *
 * The fast path (a whole warp - all 32 lanes live - of a two-warp wave that has used the wave's
 * barrier in this block) is straight code with one test and the wait's branch:
 *   - the own arrival word: one load and ONE test, together with "all 32 lanes live" (this
 *     block's tag, kArrivalReady, no kArrivalAbsent); everything else - inactive lanes, the
 *     first barrier, a warp alone - is out of line in barrier_setup and round_cold. The
 *     count's parity picks the buffer;
 *   - for a vote (kVote: ballot, all), the warp's ballot of `pred` (constant full mask), after
 *     the load: a ballot taken before the call held the load back behind the predicate's
 *     computation (session 6, call 4: the ballot loop 1.0445 against 0.8000 ms);
 *   - the stores: the lane's slot and the warp word (every lane, one instruction each), lane
 *     0's arrival word;
 *   - one arrival per lane (release: each lane publishes its own stores, so no __syncwarp
 *     before it);
 *   - the wait: a warp vote (constant full mask) on each lane's try_wait on its own token
 *     (session 5: vote.sync makes the lanes leave together from a warp-synchronous
 *     instruction, and each lane's acquire orders what it reads after it, so no __syncwarp
 *     after it); the loop, with the warp's wait_look, only after a vote found the phase
 *     incomplete, and out of line (wait_rest, session 9). The vote is needed, not only
 *     convenient (session 8): with each lane's own
 *     try_wait loop instead (f07c4d9, 4% faster), the lanes that leave the wait are not held
 *     for lane 0 while it is inside wait_cold (wait_look's leader-only predecessor) - the
 *     compiler's reconvergence point (BSYNC) is no guarantee - so after a give-up lane 0
 *     reached the next collective alone (its __activemask: itself), stood in for 31 lanes that then arrived as well, and the
 *     mbarrier's pending count underflowed ("Warp Illegal Instruction" at round_cold's
 *     arrival; plain-nvcc partner_exit failed in 25 of 25 runs, and passed with a __syncwarp
 *     after the loop, which cost more than the vote);
 *   - the partner's warp word and src's slot, loaded together (one round trip, no test between);
 *   - the propagation of "no live lanes" (below): one predicated store, no branch.
 * Measured (session 6, docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md): 10.0x a native
 * shuffle for shfl_xor(32), 10.5x for a 64-lane shfl_down, 11.2x for a ballot, against
 * 14.9-18.9x with session 5's per-collective test of the partner's word; session 9, with the
 * retry in wait_rest: 9.1x, 9.4-9.5x, 10.7-10.8x; session 10, every cold decision a vote (no
 * YIELD in the loop): 9.0x, 9.3x, 9.4x. Measured and not kept: the propagation at the
 * head of the next collective (the partner's two words loaded with the own word; shuffles 15%
 * slower, votes and the bare barrier faster), an inline-PTX wait loop (slower). The wait's
 * remainder out of line was first dropped for registers (plain-nvcc split_wave over 64); since
 * session 9 wait_rest takes only the token and nvcc.opts caps unbounded kernels at 64.
 * Nothing tests the partner's arrival word: a partner that did not take part reads as a warp
 * word of no live lanes, which the callers use as they use any live mask (the wave's live
 * lanes mask every slot read; a ballot is ANDed with them).
 *
 * Why the partner's warp word of barrier k is 0 whenever the partner did not take part in k:
 *   - it exited after barrier k-1 (guarded kernel): its last lane zeroes its word of barrier k
 *     (buffer of k-2, which this warp read before it arrived at k-1, which the partner passed)
 *     and then drops its 32 arrivals (arrive_drop, release: into phase k, and 32 fewer expected
 *     in every later phase, so this warp's barriers complete with its own arrivals from then
 *     on). Its word of barrier k+1 is the buffer of k-1, which this warp may still be reading
 *     when the partner exits, so the exiting warp cannot zero it; this warp does, after barrier
 *     k: a lane that reads a partner word of no live lanes stores 0 into the partner's word of
 *     the next barrier (the propagation; predicated). That store is safe: every lane of this
 *     warp read that word (barrier k-1's) before it arrived at k, which the storing lane has
 *     passed; a partner that took part never publishes 0 (the calling lanes are live), so the
 *     store happens only for a partner that exited (or was given up: below). Barrier k+1's
 *     reader then finds 0 and stores 0 for k+2, and so on;
 *   - it never used the barrier and exited (guarded: the exited mask) or is presumed gone after
 *     PORTER_HOC_ABSENT_MS (wait_look; ready_wave for warp 1): go_alone zeroes both its words
 *     before the arrivals that publish it;
 *   - a one-warp wave: go_alone at its first barrier.
 * Tested by fixtures/hip_on_cuda/partner_exit (session 7: a warp exits after 1-6 collectives, its
 * partner runs 576 more; removing either the exit guard's zero or the propagation makes it fail).
 * Buffer reuse: a lane passes barrier k only after every lane of the wave arrived at k, which
 * each did after its own reads of collective k-1; so collective k+1 may overwrite k-1's
 * buffer (slots and warp words). */
/* The rest of a fast-path wait whose first vote found the phase incomplete, out of line
 * (session 9): the retry loop inlined into every collective cost the fast path 3-33% on the H200
 * (docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md, session 9), though the first vote nearly
 * always succeeds. The whole warp calls it (the vote is uniform) and leaves it together (the
 * last vote); it reads its wave's mbarrier anew, so the call site passes only the token (with
 * `bar` and `leader` as arguments plain-nvcc split_wave needed 66 registers, over 1024-thread
 * blocks' 64). The loop is the one wave_round's comment describes: a warp vote on each lane's
 * try_wait, the leader's wait_look at the 3rd, 11th, 19th ... unsuccessful vote. */
__device__ __noinline__ inline void wait_rest(unsigned long long state) {
  const unsigned t = fresh_thread_index(nullptr);
  const unsigned bar = shared_addr(&wave_mbarriers()[t / kWaveLanes]);
  const bool leader = (t % 32u) == 0u;
  bool done = false;
  unsigned start = 0;
  for (unsigned tries = 1; !done; ++tries) {
    if ((tries & 7u) == 3u) start = wait_look(0xffffffffu, leader, start);
    done = porter_hoc_cuda_all_sync(0xffffffffu, mbar_try_wait(bar, state));
  }
}

template <bool kData, bool kVote = false>
__device__ inline unsigned long long wave_round(const WavePos& p, unsigned live, unsigned long long& mine, unsigned value,
                                                unsigned src, unsigned* got, unsigned* buf_out, int pred = 0) {
  const unsigned own = shared_addr(&arrivals()[p.wave][p.half]);
  const unsigned long long seen = ld_relaxed64(own);
  unsigned long long next = count_bumped(seen);
  constexpr unsigned kSlotsBuffer = kMaxWaves * kWaveLanes * 4u;
  const unsigned long long tag = arrival_tag();
  // The fast path when every lane of the warp is live and (a vote: the word is the same in every
  // lane) the word is this block's, ready and not alone. Both tests are the warp's to ptxas (the
  // active mask; a vote), so no convergence check, no BSSY/BSYNC and no YIELD in a loop around
  // the collective (session 10, SASS of bench/hip_on_cuda_collectives.hip).
  if (live != 0xffffffffu ||
      porter_hoc_cuda_any_sync(0xffffffffu, (((seen ^ tag) & (kArrivalTag | kArrivalReady | kArrivalAbsent)) ^ kArrivalReady) != 0ull)) {
    if (porter_hoc_cuda_any_sync(live, ((seen ^ tag) & (kArrivalTag | kArrivalReady)) != kArrivalReady)) next = barrier_setup(live);
    if (kVote) mine |= static_cast<unsigned long long>(porter_hoc_cuda_ballot_sync(live, pred)) << 32;
    next = round_cold<kData>(live, mine, value, next);
  } else {
    const unsigned buf = static_cast<unsigned>(next) & 1u;
    // Addresses from the buffer by arithmetic (selecting between two addresses kept in
    // registers costs registers where many collectives are inlined).
    if (kData) st_weak32(shared_addr(&scratch().slot[0][p.wave][p.lane]) + kSlotsBuffer * buf, value);
    if (kVote) mine |= static_cast<unsigned long long>(porter_hoc_cuda_ballot_sync(0xffffffffu, pred)) << 32;
    st_weak64(shared_addr(&warp_words()[0][p.wave][p.half]) + kWarpWordsBuffer * buf, mine);
    const unsigned bar = shared_addr(&wave_mbarriers()[p.wave]);
    const bool leader = (p.lane % 32u) == 0u;
    if (leader) st_relaxed(own, next);
    const unsigned long long state = mbar_arrive(bar, 1u);
    // The wait: a warp vote on each lane's try_wait, the first one outside the loop. Written
    // as a loop on a flag: with a `break` out of the loop ptxas gave each collective's first
    // vote a convergence register of its own, and where many collectives are inlined
    // (split_wave) it ran out of them and saved them in general registers (plain nvcc: 67
    // registers, 1024-thread blocks would not launch; this form: 64).
    bool done = porter_hoc_cuda_all_sync(0xffffffffu, mbar_try_wait(bar, state));
    if (!done) wait_rest(state);
  }
  const unsigned buf = static_cast<unsigned>(next) & 1u;
  // Loaded in this order, before any use (volatile: not sunk), so they share one round trip.
  const unsigned theirs_at = shared_addr(&warp_words()[0][p.wave][p.half ^ 1u]) + kWarpWordsBuffer * buf;
  const unsigned long long theirs = ld_relaxed64(theirs_at);
  if (kData) *got = ld_relaxed32(shared_addr(&scratch().slot[0][p.wave][src]) + kSlotsBuffer * buf);
  // The propagation (above): a partner of no live lanes here has none at the next barrier.
  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0; @p st.relaxed.cta.shared.u64 [%1], %2; }"
               ::"r"(static_cast<unsigned>(theirs)), "r"(theirs_at + kWarpWordsBuffer - 2u * kWarpWordsBuffer * buf), "l"(0ull) : "memory");
  *buf_out = buf;
  return theirs;
}

/* Synchronise the (one or two) warps of the caller's wave and order their shared-memory
 * accesses. `live_mine`: the live lanes of the calling warp, all of which call this. Returns
 * the other warp's live lanes at this barrier (0: it did not take part, or there is none). */
__device__ inline unsigned wave_barrier(const WavePos& p, unsigned live_mine) {
  unsigned buf;
  unsigned long long mine = live_mine;
  return static_cast<unsigned>(wave_round<false>(p, live_mine, mine, 0u, 0u, nullptr, &buf));
}

/* The exit guard. porter's hip-on-cuda hipcc puts one of these first in the body of every
 * kernel it compiles (porter/toolchains/hoc_guard.py), so that a warp's exit - the end of the
 * kernel or any `return`, on every lane - leaves a mark its partner can read: the constructor
 * clears the warp's exited mask and then sets kArrivalGuarded in its arrival word (in that
 * order, released), the destructor sets the lane's bit in the mask (released). Every lane of a
 * block runs the constructor, at the kernel's first statement, where its warp is converged.
 * Kernels without it (compiled by plain nvcc) fall back on the bounded wait. */
struct KernelExit {
  __device__ KernelExit() {
    const unsigned t = fresh_thread_index(nullptr);
    const unsigned wave = t / kWaveLanes, half = (t / 32u) & 1u;
    if (t % 32u == 0u) {
      exits()[wave][half] = 0u;
      // A partner that gave this warp up before it started (after PORTER_HOC_ABSENT_MS) left
      // kArrivalGivenUp here; the or keeps it for the warp's first arrival to find.
      unsigned long long* w = &arrivals()[wave][half];
      const unsigned long long tag = arrival_tag();
      const unsigned long long old = exch_release(shared_addr(w), tag | kArrivalGuarded);
      if ((old & kArrivalTag) == tag && (old & kArrivalGivenUp)) st_relaxed(shared_addr(w), old | kArrivalGuarded);
    }
    __syncthreads();  // the cleared mask before any exit (every thread of the block runs this first)
  }
  /* The lane's exit: its bit in the warp's exited mask (acquire-release: the last lane to exit
   * sees what the others wrote before their exits, the warp's arrival word included). The
   * last lane of a warp that uses the wave's mbarrier (kArrivalReady without kArrivalAbsent)
   * zeroes the warp's word of its next barrier (count + 1; see wave_round for why that one and
   * who zeroes the later ones) and drops the warp's 32 arrivals from the mbarrier
   * (mbarrier.arrive_drop, release: arrivals for the phase in progress, and 32 fewer expected in
   * every later phase), so a partner waiting there, now or later, goes on at once without any
   * clock and reads this warp as having no live lanes. The phase in progress then has at most
   * the partner's 32 arrivals: it passed every earlier phase before its lanes exited. */
  __device__ ~KernelExit() {
    unsigned n;
    const unsigned t = fresh_thread_index(&n);
    const unsigned wave = (t / kWaveLanes) % kMaxWaves, half = (t / 32u) & 1u, bit = 1u << (t % 32u);
    const unsigned old = or_acq_rel(shared_addr(&exits()[wave][half]), bit);
    const unsigned lanes = lanes_of(wave, half, n);
    if ((old & lanes) == lanes || ((old | bit) & lanes) != lanes) return;  // not the last lane
    const unsigned long long w = ld_relaxed64(shared_addr(&arrivals()[wave][half]));
    if ((w & kArrivalTag) == arrival_tag() && (w & kArrivalReady) && !(w & kArrivalAbsent)) {
      const unsigned words = ld_relaxed32(shared_addr(&warp_words_at()[wave][half]));
      st_relaxed(words + kWarpWordsBuffer * (static_cast<unsigned>(w + 1ull) & 1u) + 16u * wave + 8u * half, 0ull);
      asm volatile("mbarrier.arrive_drop.release.cta.shared::cta.b64 _, [%0], %1;"
                   ::"r"(shared_addr(&wave_mbarriers()[wave])), "r"(32u) : "memory");
    }
  }
  KernelExit(const KernelExit&) = delete;
  KernelExit& operator=(const KernelExit&) = delete;
};
/* Tested by the declarations porter's transform inserts, so that a source which never includes
 * the HIP headers compiles as it was. */
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
#define PORTER_HOC_EXIT_GUARD 1
#endif

/* The lanes of the calling warp that execute this collective: CUDA's active mask (the lanes
 * converged here; lanes past the end of a partial block never are). Lanes that returned, or
 * that are in another branch, are inactive - AMD's EXEC mask for the same code. */
__device__ inline unsigned live_lanes_of_warp() {
  return porter_hoc_cuda_activemask();
}

/* One collective call: publish, synchronise once, read (wave_round). The slots and warp words
 * of alternate calls are in alternate buffers (the barrier count's parity), so the next call's
 * writes cannot overwrite what a slower partner still reads: it must pass this call's barrier
 * before it can reach the next one, and the barrier waits for both warps. */
class WaveCall {
 public:
  __device__ WaveCall() : p_(wave_pos()) { live_mine_ = live_lanes_of_warp(); }

  __device__ const WavePos& pos() const { return p_; }
  __device__ unsigned lane() const { return p_.lane; }
  __device__ unsigned live_mine() const { return live_mine_; }

  /* Publishes this lane's 32-bit value and this warp's 32-bit word (the same value in every
   * lane of the warp), then waits for the whole wave. */
  __device__ void publish(unsigned value, unsigned warp_word = 0) { (void)exchange(value, p_.lane, warp_word); }

  /* Publishes this warp's 32-bit word only (no per-lane value: the votes), then waits for the
   * whole wave: no slot stored or loaded (value_of() is not to be used after it). */
  __device__ void publish_word(unsigned warp_word) {
    unsigned long long mine = live_mine_ | (static_cast<unsigned long long>(warp_word) << 32);
    const unsigned long long theirs = wave_round<false>(p_, live_mine_, mine, 0u, 0u, nullptr, &buf_);
    compose(mine, theirs);
  }

  /* publish_word() of this warp's ballot of `predicate` over its live lanes, voted inside the
   * round, after its first load (a vote before it holds the load back behind the predicate's
   * computation: session 6, call 4, ballot 1.0445 against 0.8000 ms) and, on the whole-warp
   * fast path, with the constant full mask. */
  __device__ void publish_ballot(int predicate) {
    unsigned long long mine = live_mine_;
    const unsigned long long theirs = wave_round<false, true>(p_, live_mine_, mine, 0u, 0u, nullptr, &buf_, predicate);
    compose(mine, theirs);
  }

  /* publish(), and the value lane `src` (taken mod 64) published: 0 for an inactive lane (or a
   * lane of a partner that did not take part: its warp word reads 0). */
  __device__ unsigned exchange(unsigned value, unsigned src, unsigned warp_word = 0) {
    src %= kWaveLanes;
    unsigned long long mine = live_mine_ | (static_cast<unsigned long long>(warp_word) << 32);
    unsigned v;
    const unsigned long long theirs = wave_round<true>(p_, live_mine_, mine, value, src, &v, &buf_);
    compose(mine, theirs);
    return ((live64_ >> src) & 1ull) ? v : 0u;
  }

  /* After publish(): live lanes of the wave (bit i = lane i). */
  __device__ unsigned long long live() const { return live64_; }
  /* After publish(): word of half 0 in bits 0-31, of half 1 in bits 32-63 (0 if absent). */
  __device__ unsigned long long words() const { return words64_; }
  /* After publish(): the value lane `src` (0..63) published; 0 for an inactive lane. The slot
   * is loaded whatever the lane's liveness, so the load does not wait for the test. */
  __device__ unsigned value_of(unsigned src) const {
    src %= kWaveLanes;
    const unsigned v = scratch().slot[buf_][p_.wave][src];
    return ((live64_ >> src) & 1ull) ? v : 0u;
  }

  /* Ends the call. Nothing to do: the next call writes the other buffer (see above). */
  __device__ void finish() {}

 private:
  /* The wave's live lanes and words from this warp's word and the partner's. */
  __device__ void compose(unsigned long long mine, unsigned long long theirs) {
    const unsigned long long w0 = p_.half ? theirs : mine, w1 = p_.half ? mine : theirs;
    live64_ = (w0 & 0xffffffffull) | (w1 << 32);
    words64_ = (w0 >> 32) | (w1 & ~0xffffffffull);
  }

  WavePos p_;
  unsigned live_mine_;
  unsigned buf_ = 0;
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
  return c.exchange(word, src);
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
  c.publish_ballot(predicate);
  const unsigned long long r = c.words() & c.live();
  c.finish();
  return r;
}

__device__ inline unsigned long long activemask() {
  WaveCall c;
  c.publish_word(0u);
  const unsigned long long r = c.live();
  c.finish();
  return r;
}

__device__ inline int any(int predicate) { return ballot(predicate) != 0ull; }

/* True when the predicate holds on every active lane. */
__device__ inline int all(int predicate) {
  WaveCall c;
  c.publish_ballot(predicate);
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
  c.publish_ballot(predicate);
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
  (void)wave_barrier(p, live_lanes_of_warp());
}
template <class MaskT>
__device__ inline void wave_sync(MaskT) { wave_sync(); }

}  // namespace porter_hoc
