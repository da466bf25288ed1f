#!/usr/bin/env bash
# Device batch of session 3 (branch i13e, the mbarrier wave barrier), from the repository root
# on an NVIDIA GPU machine, after bench/hip_on_cuda_guard_prepare.sh ran where tree-sitter is
# (guard/: instrumented fixtures, benchmark and control-set sources; guard/baseline: the shims
# before this change). In one call: the protocol microbenchmark (bench/hip_on_cuda_protocols.cu,
# the hardware floors), the collectives benchmark guarded with these shims, guarded with the
# baseline shims, unguarded (plain nvcc) and native; every fixture instrumented (compiled in
# parallel, as bench/hip_on_cuda_guard_final.sh) and every fixture as fixtures/hip_on_cuda/run.sh
# builds it (plain nvcc, no guard: the bounded wait); the rocm-examples control set with
# instrumented sources; the benchmark also with each guard/variants/NAME/hip_on_cuda (another
# version of the shims, first on the include path) and every fixture but libraries instrumented
# with it. Results in $OUT/results.tgz.
#   OUT=/tmp/o timeout 560 bash bench/hip_on_cuda_session3_device.sh
set -u
out="${OUT:-/tmp/hoc_out}"; res=/tmp/hoc_s3; rm -rf "$res"; mkdir -p "$out" "$res"
shim=shims/hip_on_cuda
libs="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$res/gpu.txt" 2>&1
git_rev="$(cat REVISION 2>/dev/null)"; echo "revision ${git_rev:-unknown}" >> "$res/gpu.txt"
(CUDA_LIBS="$libs" BUILD_DIR=/tmp/fxu TIMEOUT=60 fixtures/hip_on_cuda/run.sh > "$res/fixtures_unguarded.txt" 2>&1
 echo "fixtures exit $?" >> "$res/fixtures_unguarded.txt") &
nvcc -std=c++17 -O3 -arch=sm_90 bench/hip_on_cuda_protocols.cu -o /tmp/protocols > "$res/protocols_build.txt" 2>&1 &
build() {  # mode source [options]
  local mode="$1" src="$2"; shift 2
  local opts=$shim/nvcc.opts; [ "$mode" = native ] && opts=$shim/nvcc_platform_nvidia.opts  # no register cap
  nvcc -std=c++17 -O3 -arch=sm_90 "$@" -I$shim --options-file "$opts" -x cu "$src" -o /tmp/coll_$mode \
    --resource-usage > "$res/coll_build_$mode.txt" 2>&1
}
build guarded guard/bench/hip_on_cuda_collectives.hip &
build baseline guard/bench/hip_on_cuda_collectives.hip -Iguard/baseline/shims/hip_on_cuda &
build unguarded bench/hip_on_cuda_collectives.hip &
build native bench/hip_on_cuda_collectives.hip -DPORTER_HOC_PLATFORM_NVIDIA &
variants=()  # guard/variants/NAME/hip_on_cuda: other versions of the shims, benchmark only
for v in guard/variants/*/hip_on_cuda; do
  [ -d "$v" ] || continue; name="$(basename "$(dirname "$v")")"; variants+=("variant_$name")
  build "variant_$name" guard/bench/hip_on_cuda_collectives.hip -I"$v" &
  for f in guard/fixtures/hip_on_cuda/*.hip.cu; do  # every fixture but libraries, instrumented
    fx="$(basename "$f" .hip.cu)"; [ "$fx" = libraries ] && continue
    nvcc -std=c++17 -arch=sm_90 -I"$v" -I$shim --options-file $shim/nvcc.opts -o /tmp/fxv_${name}_$fx "$f" \
      > "$res/fxv_build_${name}_$fx.txt" 2>&1 &
  done
done
for f in guard/fixtures/hip_on_cuda/*.hip.cu; do
  name="$(basename "$f" .hip.cu)"; extra=()
  if [ "$name" = libraries ]; then
    extra=(-I"$libs/include" -L"$libs/lib" -Xlinker "-rpath,$libs/lib")
    for lib in cublas cublasLt cusparse curand cufft; do
      so="$(cd "$libs/lib" && ls lib$lib.so* 2>/dev/null | head -1)"; extra+=("-l:${so:-lib$lib.so}")
    done
  fi
  nvcc -std=c++17 -arch=sm_90 -I$shim --options-file $shim/nvcc.opts -o /tmp/fx_$name "$f" "${extra[@]}" \
    --resource-usage > "$res/fx_build_$name.txt" 2>&1 &
done
python3 bench/hip_on_cuda_control.py build --corpus guard/corpus --out /tmp/ctl --jobs 8 \
  --allow-failures > "$res/control_build.txt" 2>&1 &
wait
for r in 1 2; do timeout 60 /tmp/protocols > "$res/protocols_$r.txt" 2>&1; echo "exit $?" >> "$res/protocols_$r.txt"; done
for r in 1 2; do
  for mode in baseline guarded unguarded native "${variants[@]}"; do
    timeout 120 /tmp/coll_$mode > "$res/collectives_${mode}_$r.txt" 2>&1; echo "exit $?" >> "$res/collectives_${mode}_$r.txt"
  done
done
for f in guard/fixtures/hip_on_cuda/*.hip.cu; do
  name="$(basename "$f" .hip.cu)"
  if [ -x /tmp/fx_$name ]; then
    r="$(timeout 60 /tmp/fx_$name 2>&1)"; rc=$?
    echo "$name exit $rc: $(printf '%s\n' "$r" | grep -E '^(PASS|FAIL|EXPECTED-FAIL|UNEXPECTED-PASS) ' | tail -1)"
    printf '%s\n' "$r" | tail -5 > "$res/fx_run_$name.txt"
  else
    echo "$name: build failed: $(grep -m2 error "$res/fx_build_$name.txt")"
  fi
done > "$res/fixtures_guarded.txt"
for v in "${variants[@]}"; do
  name="${v#variant_}"
  for f in guard/fixtures/hip_on_cuda/*.hip.cu; do
    fx="$(basename "$f" .hip.cu)"; [ "$fx" = libraries ] && continue
    if [ -x /tmp/fxv_${name}_$fx ]; then
      r="$(timeout 60 /tmp/fxv_${name}_$fx 2>&1)"; rc=$?
      echo "$fx exit $rc: $(printf '%s\n' "$r" | grep -E '^(PASS|FAIL|EXPECTED-FAIL|UNEXPECTED-PASS) ' | tail -1)"
    else
      echo "$fx: build failed: $(grep -m2 error "$res/fxv_build_${name}_$fx.txt")"
    fi
  done > "$res/fixtures_variant_$name.txt"
done
python3 bench/hip_on_cuda_control.py run --bin /tmp/ctl --out "$res/control.json" --timeout 60 > "$res/control_run.txt" 2>&1
tar czf "$out/results.tgz" -C "$res" .
for f in "$res"/fixtures_*.txt; do echo "== $f"; grep -v "^ok\|^    " "$f"; done
for f in "$res"/collectives_*_1.txt; do echo "$(basename "$f"): $(grep -E 'cross|down_full|ballot|wave_barrier|divergent64|mfma' "$f" | awk '{printf "%s=%s ", $1, $2}')"; done
tail -3 "$res/control_run.txt"
