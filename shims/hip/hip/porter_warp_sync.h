/* porter overlay: the ROCm 6.3 warp functions with masks (*_sync) and __activemask.
 *
 * Stands in for the *_sync cross-lane functions of ROCm 6.3's amd_warp_sync_functions.h,
 * written from the documented API (HIP C++ language extensions, "Warp cross-lane
 * functions", ROCm 6.3), not from ROCm's source. Debian's HIP 5.2 has only the unmasked
 * __shfl*, __ballot, __any and __all; these wrap them.
 *
 * The rule a port must meet, as on ROCm 6.3: a wavefront on gfx9 has 64 lanes, so a
 * lane mask is a 64-bit integer. ROCm 6.3 rejects any narrower mask type at compile
 * time with a static_assert, because CUDA's habitual 0xffffffff names only lanes 0-31
 * of a wave64. The same assertion, with ROCm's message, is reproduced here.
 *
 * Not reproduced: ROCm's run-time check that the calling lane is named in the mask
 * (it costs registers and would skew the resource numbers porter reports).
 */
#pragma once

#define __PORTER_CHECK_MASK(MaskT)                                                     \
  static_assert(__is_integral(MaskT) && sizeof(MaskT) == 8,                            \
                "The mask must be a 64-bit integer. Implicitly promoting a smaller "    \
                "integer is almost always an error.")

/* All lanes currently executing; 64 bits, one per lane of the wave64. */
__attribute__((device)) inline unsigned long long __activemask() {
  return __ballot(1);
}

template <typename MaskT>
__attribute__((device)) inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
  __PORTER_CHECK_MASK(MaskT);
  return __ballot(predicate) & static_cast<unsigned long long>(mask);
}

template <typename MaskT>
__attribute__((device)) inline int __any_sync(MaskT mask, int predicate) {
  __PORTER_CHECK_MASK(MaskT);
  return (__ballot(predicate) & static_cast<unsigned long long>(mask)) != 0;
}

/* True when the predicate holds on every active lane named in the mask. */
template <typename MaskT>
__attribute__((device)) inline int __all_sync(MaskT mask, int predicate) {
  __PORTER_CHECK_MASK(MaskT);
  unsigned long long named = static_cast<unsigned long long>(mask) & __activemask();
  return (__ballot(predicate) & named) == named;
}

/* Shuffles: same lane arithmetic as the unmasked HIP functions (width divides the wave
 * into segments of `width` lanes; out-of-segment sources return the caller's value). */
template <typename MaskT, typename T>
__attribute__((device)) inline T __shfl_sync(MaskT mask, T var, int src_lane,
                                             int width = warpSize) {
  __PORTER_CHECK_MASK(MaskT);
  return __shfl(var, src_lane, width);
}

template <typename MaskT, typename T>
__attribute__((device)) inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta,
                                                int width = warpSize) {
  __PORTER_CHECK_MASK(MaskT);
  return __shfl_up(var, delta, width);
}

template <typename MaskT, typename T>
__attribute__((device)) inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta,
                                                  int width = warpSize) {
  __PORTER_CHECK_MASK(MaskT);
  return __shfl_down(var, delta, width);
}

template <typename MaskT, typename T>
__attribute__((device)) inline T __shfl_xor_sync(MaskT mask, T var, int lane_mask,
                                                 int width = warpSize) {
  __PORTER_CHECK_MASK(MaskT);
  return __shfl_xor(var, lane_mask, width);
}

/* The lanes named in the mask whose value equals the caller's. The loop runs once per
 * distinct value; `pending` is built from ballots, so it is uniform and every __shfl
 * below is executed by the whole wave, as ds_bpermute requires. */
template <typename MaskT, typename T>
__attribute__((device)) inline unsigned long long __match_any_sync(MaskT mask, T value) {
  __PORTER_CHECK_MASK(MaskT);
  unsigned long long named = static_cast<unsigned long long>(mask) & __activemask();
  unsigned long long pending = named;
  unsigned long long mine = 0;
  while (pending != 0) {
    int leader = __builtin_ctzll(pending);
    T candidate = __shfl(value, leader);
    unsigned long long same = __ballot(value == candidate) & named;
    if (value == candidate) mine = same;
    pending &= ~same;
  }
  return mine;
}

/* The whole mask when every lane named in it holds the same value, else 0; *pred says
 * which of the two happened. */
template <typename MaskT, typename T>
__attribute__((device)) inline unsigned long long __match_all_sync(MaskT mask, T value,
                                                                   int* pred) {
  __PORTER_CHECK_MASK(MaskT);
  unsigned long long named = static_cast<unsigned long long>(mask) & __activemask();
  T first = __shfl(value, named != 0 ? __builtin_ctzll(named) : 0);
  int all = (__ballot(value == first) & named) == named;
  *pred = all;
  return all ? static_cast<unsigned long long>(mask) : 0ull;
}

#undef __PORTER_CHECK_MASK
