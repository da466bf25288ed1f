#!/usr/bin/env bash
# Device batch 1 of session 3 (branch i13e): the protocol microbenchmark
# (bench/hip_on_cuda_protocols.cu) and, in the same call, the collectives benchmark with the
# shims as they are (guarded copy in guard/bench, prepared by porter.toolchains.hoc_guard) and
# native. Results in $OUT.
set -u
out="${OUT:-/tmp/hoc_out}"; mkdir -p "$out"
shim=shims/hip_on_cuda
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
nvcc -std=c++17 -O3 -arch=sm_90 bench/hip_on_cuda_protocols.cu -o /tmp/protocols > "$out/protocols_build.txt" 2>&1 &
nvcc -std=c++17 -O3 -arch=sm_90 -I$shim --options-file $shim/nvcc.opts -x cu guard/bench/hip_on_cuda_collectives.hip \
  -o /tmp/coll_guarded > "$out/coll_build_guarded.txt" 2>&1 &
nvcc -std=c++17 -O3 -arch=sm_90 -I$shim --options-file $shim/nvcc_platform_nvidia.opts -DPORTER_HOC_PLATFORM_NVIDIA -x cu \
  bench/hip_on_cuda_collectives.hip -o /tmp/coll_native > "$out/coll_build_native.txt" 2>&1 &
wait
for r in 1 2; do timeout 60 /tmp/protocols > "$out/protocols_$r.txt" 2>&1; echo "exit $?" >> "$out/protocols_$r.txt"; done
for mode in guarded native; do
  timeout 60 /tmp/coll_$mode > "$out/collectives_$mode.txt" 2>&1; echo "exit $?" >> "$out/collectives_$mode.txt"
done
