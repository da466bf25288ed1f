// porter compat: cooperative_groups::labeled_partition, which HIP does not have, written by
// HIP017 as porter::labeled_partition and pulled in by SHIM041.
//
// CUDA (C++ Programming Guide, "Cooperative Groups: labeled_partition", compute capability 7.0)
// splits a coalesced_group, or a thread_block_tile of at most 32 threads, into coalesced groups
// of the threads that pass the same label, and returns the caller's; every thread of the parent
// calls it together. ROCm 6.3's cooperative groups have binary_partition but no labeled_partition
// (ROCm/clr hipamd/include/hip/amd_detail/amd_hip_cooperative_groups.h).
//
// Here: one binary_partition a bit of the label, from the parent. Two threads end in the same
// group exactly when every bit of their labels agrees, and each step keeps the caller's side, so
// the result is the caller's label group, a coalesced_group of the target's wave (64 lanes on
// gfx950: a parent of 64 lanes splits into groups of up to 64). Every thread of the parent runs
// the same 8 * sizeof(label) steps, so they call each binary_partition together, as it asks.
// Cost: one ballot a bit (32 for an int label), where CUDA's uses one match_any.
#include <hip/hip_cooperative_groups.h>

#include <type_traits>

namespace porter {

template <class Label>
__device__ cooperative_groups::coalesced_group labeled_partition(const cooperative_groups::coalesced_group& parent,
                                                                 Label label) {
  static_assert(std::is_integral<Label>::value, "porter::labeled_partition: the label is an integer, as in CUDA");
  const unsigned long long bits = static_cast<unsigned long long>(label);
  cooperative_groups::coalesced_group g = parent;
  for (unsigned b = 0; b < 8u * sizeof(Label); ++b) g = cooperative_groups::binary_partition(g, ((bits >> b) & 1ull) != 0ull);
  return g;
}

template <unsigned int Size, class Parent, class Label>
__device__ cooperative_groups::coalesced_group labeled_partition(
    const cooperative_groups::thread_block_tile<Size, Parent>& parent, Label label) {
  static_assert(std::is_integral<Label>::value, "porter::labeled_partition: the label is an integer, as in CUDA");
  // The tile's lanes as a coalesced group first: every lane passes true, so the group is the
  // lanes that run. (ROCm 6.3 splits a tile's whole aligned run, so a false side would also
  // count the lanes past the end of a partial block.)
  return labeled_partition(cooperative_groups::binary_partition(parent, true), label);
}

}  // namespace porter
