/* porter overlay for <hip/hip_cooperative_groups.h>: ROCm 6.3's cooperative groups on Debian's HIP 5.2.
 *
 * Debian's header first (found with #include_next), then what ROCm 6.3 added to the AMD
 * cooperative groups API that ports use (porter_cooperative_groups.h). Device code only, as
 * ROCm's header: the AMD cooperative groups need the HIP language (__HIP__).
 */
#pragma once

#include_next <hip/hip_cooperative_groups.h>

#if defined(__cplusplus) && defined(__HIP__) && defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#include "porter_cooperative_groups.h"
#endif
