/* tests/agents/cpu_waves: the one cooperative-groups call porter's multi-wave tile fixture makes
 * itself (this_thread_block, handed to porter::tiled_partition, which only needs its type). */
#pragma once
#include <hip/hip_runtime.h>

namespace cooperative_groups {
struct thread_block {
  unsigned thread_rank() const { return porter_cpu::rank(); }
};
inline thread_block this_thread_block() { return {}; }
}  // namespace cooperative_groups
