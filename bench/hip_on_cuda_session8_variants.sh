#!/usr/bin/env bash
# Other versions of the shims for bench/hip_on_cuda_session8_device.sh: for each
# bench/hip_on_cuda_session8_variants/NAME.patch (a diff of porter_hoc/wave.h against the
# baseline's), guard/variants/NAME/hip_on_cuda = guard/baseline's shims with the patch applied.
# Run after bench/hip_on_cuda_guard_prepare.sh (which writes guard/baseline; BASELINE=main).
#   bash bench/hip_on_cuda_session8_variants.sh [NAME ...]
# PATCHES: the folder of NAME.patch files (default bench/hip_on_cuda_session8_variants).
set -eu
dir="${PATCHES:-bench/hip_on_cuda_session8_variants}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for p in "$dir"/*.patch; do names+=("$(basename "$p" .patch)"); done
fi
rm -rf guard/variants
for n in "${names[@]}"; do
  mkdir -p "guard/variants/$n"
  cp -r guard/baseline/shims/hip_on_cuda "guard/variants/$n/"
  patch -s "guard/variants/$n/hip_on_cuda/porter_hoc/wave.h" "$dir/$n.patch"
done
ls guard/variants
