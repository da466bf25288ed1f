/* porter hip_on_cuda: everything, in the one order that works (see porter_hoc/config.h):
 * CUDA headers and identity, runtime API, device functions, the wave64 emulation and the
 * builtins, HIP's cross-lane names, and last the clang-only keywords and the hiding of CUDA's
 * version macros. A CUDA header included after this one goes between porter_hoc/cuda_begin.h
 * and porter_hoc/cuda_end.h. */
#pragma once

#include <porter_hoc/config.h>
#include <hip/hip_runtime_api.h>
#include <porter_hoc/device.h>
#include <porter_hoc/wave.h>
#include <porter_hoc/mfma.h>
#include <porter_hoc/amdgcn.h>
#include <porter_hoc/atomic_builtins.h>
#include <porter_hoc/hip_names.h>
/* Renames clang-only keywords and builtins (__bf16, _Float16, device __atomic_signal_fence)
 * that porter's rewrites emit. */
#include <porter_hoc/clang_ext.h>
/* Last: CUDA's version and architecture macros leave the program's view. */
#include <porter_hoc/cuda_version_hide.h>
