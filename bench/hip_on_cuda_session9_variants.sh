#!/usr/bin/env bash
# The session-10 candidates for bench/hip_on_cuda_session8_device.sh: for each
# bench/hip_on_cuda_session9_variants/NAME.patch (a diff of porter_hoc/wave.h against main's),
# guard/variants/NAME/hip_on_cuda = guard/baseline's shims with the patch applied. Run after
# bench/hip_on_cuda_guard_prepare.sh (which writes guard/baseline; BASELINE=main). The same as
# bench/hip_on_cuda_session8_variants.sh for another folder of patches.
#   bash bench/hip_on_cuda_session9_variants.sh [NAME ...]
set -eu
dir=bench/hip_on_cuda_session9_variants
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
