/* porter overlay: cooperative_groups::binary_partition of ROCm 6.3 on Debian's HIP 5.2.
 *
 * ROCm 6.3 (ROCm/clr, branch release/rocm-rel-6.3.0.1, hipamd/include/hip/amd_detail/
 * amd_hip_cooperative_groups.h; added by clr commit 36d58c6 "add missing coop group operations",
 * not in the rocm-6.2.2 tag) declares, as CUDA does:
 *   coalesced_group binary_partition(const coalesced_group& g, bool pred);
 *   template <unsigned int size, class parent>
 *   coalesced_group binary_partition(const thread_block_tile<size, parent>& g, bool pred);
 * Each splits the group's lanes into those whose pred is true and those whose pred is false and
 * returns, to every lane, the coalesced group of its own side (thread_rank counts the active
 * lanes of that side, size is its lane count). cuda-samples binaryPartitionCG calls the tile
 * form. HIP 5.2 has neither.
 *
 * Written here from that API: the side's lanes are the ballot of pred over the group's lanes
 * (or its complement there). HIP 5.2's coalesced_group makes its lane-mask constructor
 * protected (and its lane mask too), so both are reached through a class derived from it that
 * adds no member (the result is a plain coalesced_group). The lanes of a thread_block_tile<size> are the
 * size-aligned run of the wave that holds the calling lane; ROCm 6.3 shifts by the block-wide
 * thread rank there, which names the same lanes for the first wave of a block only.
 */
#pragma once

namespace cooperative_groups {
namespace porter_detail {

class coalesced_group_of_mask : public coalesced_group {
 public:
  explicit __CG_QUALIFIER__ coalesced_group_of_mask(lane_mask mask) : coalesced_group(mask) {}
  // the lanes of any coalesced_group: a pointer to the protected member formed through this
  // class is a pointer to thread_group's member, usable on every thread_group
  static __CG_QUALIFIER__ lane_mask lanes_of(const coalesced_group& g) {
    constexpr auto info = &coalesced_group_of_mask::coalesced_info;
    return (g.*info).member_mask;
  }
};

__CG_QUALIFIER__ coalesced_group side_of(lane_mask group_lanes, bool pred) {
  const lane_mask taken = static_cast<lane_mask>(__ballot(pred)) & group_lanes;
  return coalesced_group_of_mask(pred ? taken : (group_lanes ^ taken));
}

template <unsigned int size> __CG_QUALIFIER__ lane_mask tile_lanes() {
  const lane_mask run = (size >= 8u * sizeof(lane_mask)) ? ~static_cast<lane_mask>(0)
                                                          : ((static_cast<lane_mask>(1) << size) - 1);
  return run << ((__lane_id() / size) * size);
}

}  // namespace porter_detail

__CG_QUALIFIER__ coalesced_group binary_partition(const coalesced_group& g, bool pred) {
  return porter_detail::side_of(porter_detail::coalesced_group_of_mask::lanes_of(g), pred);
}

template <unsigned int size, class parent>
__CG_QUALIFIER__ coalesced_group binary_partition(const thread_block_tile<size, parent>& g, bool pred) {
  (void)g;
  return porter_detail::side_of(porter_detail::tile_lanes<size>(), pred);
}

}  // namespace cooperative_groups
