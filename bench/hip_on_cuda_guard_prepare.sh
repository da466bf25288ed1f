#!/usr/bin/env bash
# Instrumented copies for bench/hip_on_cuda_guard_device.sh, under guard/ (run where porter and
# tree-sitter are installed): the fixtures and the collectives benchmark, and the rocm-examples
# control set's sources (PORTER_CORPUS: a folder with ROCm+rocm-examples), each kernel starting
# with hip_on_cuda's exit guard as porter's hip-on-cuda hipcc compiles it.
# guard/baseline: the shims of git revision $BASELINE (default main), for the same-call comparison
# (or those in the tar file $BASELINE_TAR, for a copy without .git).
# (The relaxed-spin variant of session 3's run 2 patched the polled barrier, gone since the
# mbarrier one; bench/hip_on_cuda_guard_variants.sh needs the revision before it.)
#   PORTER_CORPUS=/work/src PY=.venv/bin/python bench/hip_on_cuda_guard_prepare.sh
set -eu
py="${PY:-python3}"
corpus="${PORTER_CORPUS:?set PORTER_CORPUS to a folder with ROCm+rocm-examples}"
rm -rf guard; mkdir -p guard/fixtures/hip_on_cuda guard/bench guard/corpus
ln -s ../shims guard/shims
cp fixtures/hip_on_cuda/run.sh guard/fixtures/hip_on_cuda/
for f in fixtures/hip_on_cuda/*.hip.cu; do "$py" -m porter.toolchains.hoc_guard "$f" "guard/$f"; done
"$py" -m porter.toolchains.hoc_guard bench/hip_on_cuda_collectives.hip guard/bench/hip_on_cuda_collectives.hip
sed 's/__launch_bounds__(1024) //' guard/bench/hip_on_cuda_collectives.hip > guard/bench/hip_on_cuda_collectives_nobounds.hip
cp -r "$corpus/ROCm+rocm-examples" guard/corpus/
mkdir -p guard/baseline
if [ -n "${BASELINE_TAR:-}" ]; then tar -x -C guard/baseline -f "$BASELINE_TAR"  # outside a git checkout
else git archive "${BASELINE:-main}" shims/hip_on_cuda | tar -x -C guard/baseline; fi
grep -v '^#' bench/hip_on_cuda_control.txt | grep -v 'skip:' | while read -r dir srcs _; do
  [ -n "$dir" ] || continue
  for s in ${srcs//,/ }; do
    f="guard/corpus/ROCm+rocm-examples/$dir/$s"
    "$py" -m porter.toolchains.hoc_guard "$f" "$f.tmp" && mv "$f.tmp" "$f"
  done
done
