#!/usr/bin/env bash
# Second device batch for the exit guard (after bench/hip_on_cuda_guard_prepare.sh): where a
# guarded collective's time goes. The collectives benchmark built as: guarded (the transform's
# output), guarded without the transform's __launch_bounds__(1024), that with the exited-mask
# check every 64 spins, that with the relaxed-spin barrier variant, unguarded, main's shims
# (guard/baseline) and native; the SASS of two of them; and the coalesced_group fixture with
# main's shims (is its failure older than this change?). Results in $OUT.
set -u
out="${OUT:-/tmp/hoc_out}"; mkdir -p "$out"
shim=shims/hip_on_cuda
build() {  # name source [options]
  local name="$1" src="$2"; shift 2
  nvcc -std=c++17 -O3 -arch=sm_90 "$@" -I$shim --options-file $shim/nvcc.opts -x cu "$src" -o /tmp/coll_$name \
    --resource-usage > "$out/coll_build_$name.txt" 2>&1
}
g=guard/bench/hip_on_cuda_collectives.hip; gn=guard/bench/hip_on_cuda_collectives_nobounds.hip
build guarded $g &
build guarded_nobounds $gn &
build guarded_nobounds_check64 $gn -DPORTER_HOC_EXIT_CHECK_SPINS=64u &
build guarded_nobounds_relaxedspin $gn -Iguard/variants/relaxedspin &
build unguarded bench/hip_on_cuda_collectives.hip &
build baseline bench/hip_on_cuda_collectives.hip -Iguard/baseline/shims/hip_on_cuda &
build native bench/hip_on_cuda_collectives.hip -DPORTER_HOC_PLATFORM_NVIDIA &
nvcc -std=c++17 -arch=sm_90 -Iguard/baseline/shims/hip_on_cuda -I$shim --options-file $shim/nvcc.opts \
  -x cu fixtures/hip_on_cuda/coalesced_group.hip.cu -o /tmp/cg_baseline > "$out/cg_baseline_build.txt" 2>&1 &
wait
timeout 60 /tmp/cg_baseline > "$out/cg_baseline.txt" 2>&1; echo "exit $?" >> "$out/cg_baseline.txt"
for name in baseline unguarded guarded guarded_nobounds guarded_nobounds_check64 guarded_nobounds_relaxedspin native; do
  timeout 120 /tmp/coll_$name > "$out/collectives_$name.txt" 2>&1; echo "exit $?" >> "$out/collectives_$name.txt"
done
for name in guarded guarded_nobounds; do
  cuobjdump -sass /tmp/coll_$name > "$out/coll_$name.sass" 2>&1
done
