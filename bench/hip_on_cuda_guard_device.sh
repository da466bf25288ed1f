#!/usr/bin/env bash
# One device batch for the exit guard of hip-on-cuda (issue 13, item 4), from the repository root
# on an NVIDIA GPU machine, after bench/hip_on_cuda_guard_prepare.sh ran on a machine with
# tree-sitter (the device has none): fixtures as they are (no guard: the bounded wait) and
# instrumented (guard/fixtures), the collectives benchmark unguarded, guarded and native, and
# the rocm-examples control set with instrumented sources (guard/corpus); the benchmark also with
# main's shims before the guard (guard/baseline) and with PORTER_HOC_LATE_GIVEN_UP_CHECK=1.
# Results in $OUT.
#   OUT=/tmp/o bash bench/hip_on_cuda_guard_device.sh; tar czf $OUT/results.tgz -C /tmp/o .
set -u
out="${OUT:-/tmp/hoc_out}"; mkdir -p "$out"
shim=shims/hip_on_cuda
libs="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
(CUDA_LIBS="$libs" BUILD_DIR=/tmp/fx fixtures/hip_on_cuda/run.sh > "$out/fixtures_unguarded.txt" 2>&1; echo "fixtures exit $?" >> "$out/fixtures_unguarded.txt") &
(CUDA_LIBS="$libs" BUILD_DIR=/tmp/fxg guard/fixtures/hip_on_cuda/run.sh > "$out/fixtures_guarded.txt" 2>&1; echo "fixtures exit $?" >> "$out/fixtures_guarded.txt") &
build() {  # mode source [options]: baseline is main's shims before this change (guard/baseline)
  local mode="$1" src="$2"; shift 2
  flag=""; opts=$shim/nvcc.opts; [ "$mode" = native ] && flag=-DPORTER_HOC_PLATFORM_NVIDIA opts=$shim/nvcc_platform_nvidia.opts
  nvcc -std=c++17 -O3 -arch=sm_90 "$@" -I$shim --options-file $opts $flag -x cu "$src" -o /tmp/coll_$mode \
    --resource-usage > "$out/coll_build_$mode.txt" 2>&1
}
build unguarded bench/hip_on_cuda_collectives.hip &
build guarded guard/bench/hip_on_cuda_collectives.hip &
build guarded_late guard/bench/hip_on_cuda_collectives.hip -DPORTER_HOC_LATE_GIVEN_UP_CHECK=1 &
build native bench/hip_on_cuda_collectives.hip &
build baseline bench/hip_on_cuda_collectives.hip -Iguard/baseline/shims/hip_on_cuda &
python3 bench/hip_on_cuda_control.py build --corpus guard/corpus --out /tmp/ctl --jobs 10 \
  --allow-failures > "$out/control_build.txt" 2>&1
wait
for mode in baseline unguarded guarded guarded_late native; do
  timeout 120 /tmp/coll_$mode > "$out/collectives_$mode.txt" 2>&1; echo "exit $?" >> "$out/collectives_$mode.txt"
done
python3 bench/hip_on_cuda_control.py run --bin /tmp/ctl --out "$out/control.json" --timeout 60 > "$out/control_run.txt" 2>&1
