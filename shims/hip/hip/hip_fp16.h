/* porter overlay for <hip/hip_fp16.h>: Debian's HIP 5.2 __half API, made to build
 * under clang 22 (see porter_clang22_compat.h for the declarations clang 22 dropped).
 * The __half API itself did not change in a way ports notice between 5.2 and ROCm 6.3.
 */
#pragma once

#include "porter_clang22_compat.h"
#include_next <hip/hip_fp16.h>
