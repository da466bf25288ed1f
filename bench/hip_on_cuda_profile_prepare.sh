#!/usr/bin/env bash
# Sources for bench/hip_on_cuda_profile_device.sh, under guard/ (run here, where porter and
# tree-sitter are installed; the device has neither):
#   guard/bench/hip_on_cuda_collectives.hip   the benchmark with hip_on_cuda's exit guard, as
#                                             porter's hip-on-cuda hipcc compiles it (hoc_guard)
#   guard/baseline/shims/hip_on_cuda          the shims of git revision $BASELINE (default main)
#   guard/profile_variants/NAME/hip_on_cuda   the baseline's shims with NAME.patch applied to
#                                             porter_hoc/wave.h, for each NAME in $PROFILE_VARIANTS;
#                                             the patch is bench/hip_on_cuda_profile_variants/NAME.patch
#                                             or bench/hip_on_cuda_session8_variants/NAME.patch
# The same guarded source and baseline as bench/hip_on_cuda_guard_prepare.sh writes (which also
# needs the rocm-examples corpus; this does not).
#   PY=.venv/bin/python PROFILE_VARIANTS="s8_a s8_bearly" bash bench/hip_on_cuda_profile_prepare.sh
set -eu
py="${PY:-python3}"
variants="${PROFILE_VARIANTS-s8_a s8_bearly}"
rm -rf guard/bench guard/baseline guard/profile_variants
mkdir -p guard/bench guard/baseline
"$py" -m porter.toolchains.hoc_guard bench/hip_on_cuda_collectives.hip guard/bench/hip_on_cuda_collectives.hip
if [ -n "${BASELINE_TAR:-}" ]; then tar -x -C guard/baseline -f "$BASELINE_TAR"  # outside a git checkout
else git archive "${BASELINE:-main}" shims/hip_on_cuda | tar -x -C guard/baseline; fi
for n in $variants; do
  p="bench/hip_on_cuda_profile_variants/$n.patch"
  [ -f "$p" ] || p="bench/hip_on_cuda_session8_variants/$n.patch"
  [ -f "$p" ] || { echo "no patch for variant $n" >&2; exit 1; }
  mkdir -p "guard/profile_variants/$n"
  cp -r guard/baseline/shims/hip_on_cuda "guard/profile_variants/$n/"
  patch -s "guard/profile_variants/$n/hip_on_cuda/porter_hoc/wave.h" "$p"
done
ls guard/bench guard/baseline/shims/hip_on_cuda guard/profile_variants 2>/dev/null
