#!/usr/bin/env bash
# One device batch for issue 13, from the repository root on an NVIDIA GPU machine:
#   - fixtures/hip_on_cuda/run.sh (the seeded wave32 bug is still caught, the rest pass),
#   - bench/hip_on_cuda_collectives.hip emulated vs the NVIDIA-platform control (speed),
#   - the rocm-examples control set (bench/hip_on_cuda_control.py build, then run).
# Builds run in parallel first; the timed runs after, one at a time. Results in $OUT.
#   PORTER_CORPUS=<folder with ROCm+rocm-examples> OUT=<dir> bench/hip_on_cuda_device.sh
# It writes about ten files (coll_emulated.sass: the emulated kernels' SASS, when cuobjdump is
# there); a device call that returns at most 8 files tars them, as the session-2 runs did:
#   OUT=/tmp/o bash bench/hip_on_cuda_device.sh; tar czf $OUT/results.tgz -C /tmp/o .
set -u
out="${OUT:-/tmp/hoc_out}"; mkdir -p "$out"
shim=shims/hip_on_cuda
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
(CUDA_LIBS="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)" BUILD_DIR=/tmp/fx fixtures/hip_on_cuda/run.sh > "$out/fixtures.txt" 2>&1; echo "fixtures exit $?" >> "$out/fixtures.txt") &
for mode in emulated native; do
  flag=""; opts=$shim/nvcc.opts; [ "$mode" = native ] && flag=-DPORTER_HOC_PLATFORM_NVIDIA opts=$shim/nvcc_platform_nvidia.opts
  nvcc -std=c++17 -O3 -arch=sm_90 -I$shim --options-file $opts $flag -x cu \
    bench/hip_on_cuda_collectives.hip -o /tmp/coll_$mode --resource-usage > "$out/coll_build_$mode.txt" 2>&1 &
done
python3 bench/hip_on_cuda_control.py build --corpus "${PORTER_CORPUS:-corpus}" --out /tmp/ctl --jobs 12 \
  --allow-failures > "$out/control_build.txt" 2>&1
wait
for mode in emulated native; do
  timeout 120 /tmp/coll_$mode > "$out/collectives_$mode.txt" 2>&1; echo "exit $?" >> "$out/collectives_$mode.txt"
done
# The emulated kernels' machine code, for reading where a collective's time goes.
if command -v cuobjdump > /dev/null; then cuobjdump -sass /tmp/coll_emulated > "$out/coll_emulated.sass" 2>&1; fi
python3 bench/hip_on_cuda_control.py run --bin /tmp/ctl --out "$out/control.json" --timeout 60 > "$out/control_run.txt" 2>&1
