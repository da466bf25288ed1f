#!/usr/bin/env bash
# Third device batch for the exit guard (after bench/hip_on_cuda_guard_prepare.sh): the final
# transform (register cap __maxnreg__(64) instead of __launch_bounds__(1024)) - the collectives
# benchmark guarded and native, and every fixture instrumented, compiled in parallel (16 cores)
# and run once each (expected results: fixtures/hip_on_cuda/run.sh). Results in $OUT.
set -u
out="${OUT:-/tmp/hoc_out}"; mkdir -p "$out"
shim=shims/hip_on_cuda
libs="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)"
nvcc -std=c++17 -O3 -arch=sm_90 -I$shim --options-file $shim/nvcc.opts -x cu guard/bench/hip_on_cuda_collectives.hip \
  -o /tmp/coll_guarded --resource-usage > "$out/coll_build_guarded.txt" 2>&1 &
nvcc -std=c++17 -O3 -arch=sm_90 -I$shim --options-file $shim/nvcc_platform_nvidia.opts -DPORTER_HOC_PLATFORM_NVIDIA -x cu \
  bench/hip_on_cuda_collectives.hip -o /tmp/coll_native > "$out/coll_build_native.txt" 2>&1 &
for f in guard/fixtures/hip_on_cuda/*.hip.cu; do
  name="$(basename "$f" .hip.cu)"; extra=()
  if [ "$name" = libraries ]; then
    extra=(-I"$libs/include" -L"$libs/lib" -Xlinker "-rpath,$libs/lib")
    for lib in cublas cublasLt cusparse curand cufft; do
      so="$(cd "$libs/lib" && ls lib$lib.so* 2>/dev/null | head -1)"; extra+=("-l:${so:-lib$lib.so}")
    done
  fi
  nvcc -std=c++17 -arch=sm_90 -I$shim --options-file $shim/nvcc.opts -o /tmp/fx_$name "$f" "${extra[@]}" \
    --resource-usage > "$out/fx_build_$name.txt" 2>&1 &
done
wait
for mode in guarded native; do
  timeout 60 /tmp/coll_$mode > "$out/collectives_$mode.txt" 2>&1; echo "exit $?" >> "$out/collectives_$mode.txt"
done
for f in guard/fixtures/hip_on_cuda/*.hip.cu; do
  name="$(basename "$f" .hip.cu)"
  if [ -x /tmp/fx_$name ]; then
    r="$(timeout 60 /tmp/fx_$name 2>&1)"; rc=$?
    echo "$name exit $rc: $(printf '%s\n' "$r" | grep -E '^(PASS|FAIL|EXPECTED-FAIL|UNEXPECTED-PASS) ' | tail -1)"
  else
    echo "$name: build failed: $(grep -m2 error "$out/fx_build_$name.txt")"
  fi
done > "$out/fixtures_guarded.txt"
