#!/usr/bin/env bash
# The session-10 candidates for bench/hip_on_cuda_session8_device.sh: for each
# bench/hip_on_cuda_session9_variants/NAME.patch (a diff of porter_hoc/wave.h against main's),
# guard/variants/NAME/hip_on_cuda = guard/baseline's shims with the patch applied. Run after
# bench/hip_on_cuda_guard_prepare.sh (which writes guard/baseline; BASELINE=main).
#   bash bench/hip_on_cuda_session9_variants.sh [NAME ...]
PATCHES=bench/hip_on_cuda_session9_variants exec bash "$(dirname "$0")/hip_on_cuda_session8_variants.sh" "$@"
