/* porter hip_on_cuda: everything, in the one order that works (see porter_hoc/config.h and
 * porter_hoc/aliases.h): CUDA headers and identity, runtime API, device functions, the wave64
 * emulation and the builtins, and last the renames of CUDA's warp-intrinsic names. */
#pragma once

#include <porter_hoc/config.h>
#include <hip/hip_runtime_api.h>
#include <porter_hoc/device.h>
#include <porter_hoc/wave.h>
#include <porter_hoc/mfma.h>
#include <porter_hoc/amdgcn.h>
#include <porter_hoc/aliases.h>
/* Last: renames clang-only keywords and builtins (__bf16, _Float16, device __atomic_signal_fence)
 * that porter's rewrites emit; no CUDA header may follow. */
#include <porter_hoc/clang_ext.h>
