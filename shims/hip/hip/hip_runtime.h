/* porter overlay for <hip/hip_runtime.h>: the ROCm 6.3 device API on Debian's HIP 5.2.
 *
 * Stands in for ROCm 6.3's hip_runtime.h as far as a port's device code sees it:
 * the Debian 5.2 header (found with #include_next), made to build under clang 22
 * (porter_clang22_compat.h, porter_ockl.h), plus the warp functions with 64-bit masks
 * that HIP added in ROCm 6.2/6.3 (porter_warp_sync.h), written from ROCm 6.3's
 * documented API ("HIP C++ language extensions: warp cross-lane functions"), and min/max of
 * the coordinate components as ROCm 6.3 resolves them (porter_coordinates.h).
 * Put this directory first on the include path (porter's clang_hip.compile_unit does).
 * A host compiler (g++ on a CMake target linking hip::host) sees only HIP 5.2's host API, as
 * with ROCm's header: the device additions need the HIP language (__HIP__, clang -x hip).
 */
#pragma once

#include "porter_clang22_compat.h"
#include_next <hip/hip_runtime.h>
#if defined(__HIP__)
#include "porter_ockl.h"
#include "porter_warp_sync.h"
#include "porter_coordinates.h"
#endif
