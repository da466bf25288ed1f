#!/usr/bin/env bash
# Instrumented copies for bench/hip_on_cuda_guard_device.sh, under guard/ (run where porter and
# tree-sitter are installed): the fixtures and the collectives benchmark, and the rocm-examples
# control set's sources (PORTER_CORPUS: a folder with ROCm+rocm-examples), each kernel starting
# with hip_on_cuda's exit guard as porter's hip-on-cuda hipcc compiles it.
# guard/baseline: the shims of git revision $BASELINE (default main), for the same-call comparison.
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
# a variant of the barrier for bench/hip_on_cuda_guard_variants.sh: the spin loads relaxed, one
# acquire fence after it (instead of an acquire load per spin)
mkdir -p guard/variants/relaxedspin/porter_hoc
"$py" - <<'PY'
s = open("shims/hip_on_cuda/porter_hoc/wave.h").read()
a = "    const unsigned long long w = ld_acquire64(other);\n    const bool ours = (w & kArrivalTag) == tag;"
b = "  sync_lanes(live_mine);  // reconverge; the leader's word before the next call\n  return partner;"
assert s.count(a) == 1 and s.count(b) == 1
s = s.replace(a, a.replace("ld_acquire64", "ld_relaxed64"))
s = s.replace(b, '  asm volatile("fence.acq_rel.cta;" ::: "memory");\n' + b)
open("guard/variants/relaxedspin/porter_hoc/wave.h", "w").write(s)
PY
cp -r "$corpus/ROCm+rocm-examples" guard/corpus/
mkdir -p guard/baseline && git archive "${BASELINE:-main}" shims/hip_on_cuda | tar -x -C guard/baseline
grep -v '^#' bench/hip_on_cuda_control.txt | grep -v 'skip:' | while read -r dir srcs _; do
  [ -n "$dir" ] || continue
  for s in ${srcs//,/ }; do
    f="guard/corpus/ROCm+rocm-examples/$dir/$s"
    "$py" -m porter.toolchains.hoc_guard "$f" "$f.tmp" && mv "$f.tmp" "$f"
  done
done
