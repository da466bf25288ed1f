#!/usr/bin/env bash
# Device batch of session 8 (issue 13 item 4, branch i13j), from the repository root on an
# NVIDIA GPU machine, after bench/hip_on_cuda_guard_prepare.sh ran where tree-sitter is (guard/:
# instrumented fixtures, benchmark and control-set sources; guard/baseline: main's shims) and
# guard/variants/NAME/hip_on_cuda were written (other versions of the shims; made by
# bench/hip_on_cuda_session8_variants.py). Versions: "tree" (shims/hip_on_cuda), "baseline"
# (guard/baseline) and every variant. Everything is built first, in parallel; then everything
# runs one program at a time (no two processes on the GPU: the bounded wait is on the wall clock).
#   - the collectives benchmark, guarded, of every version (REPEATS times), native, and the
#     tree unguarded (plain nvcc);
#   - FULL versions (tree and the variants named in $FULL): every fixture instrumented and every
#     fixture plain (as fixtures/hip_on_cuda/run.sh builds it), libraries for tree only;
#   - every version: split_wave plain (its registers: 1024-thread blocks need <= 64),
#     late_half and late_steady plain and instrumented, partner_exit plain $PE_REPS times (the
#     versions in $PE_MANY; the others $PE_FEW times) and instrumented $PE_GUARDED_REPS times,
#     each plain run with a lightweight GPU core dump on an exception
#     (CUDA_ENABLE_COREDUMP_ON_EXCEPTION), and once under compute-sanitizer for the versions in
#     $SANITIZE where the machine has it;
#   - the rocm-examples control set, instrumented sources, with the tree's shims.
# Results in $OUT/results.tgz; a summary on stdout.
#   PE_MANY="baseline s8_lane tree" SANITIZE=s8_lane OUT=/tmp/o timeout 470 bash bench/hip_on_cuda_session8_device.sh
set -u
out="${OUT:-/tmp/hoc_out}"; res=/tmp/hoc_s8; bin=/tmp/hoc_s8_bin
rm -rf "$res" "$bin"; mkdir -p "$out" "$res" "$bin"
shim=shims/hip_on_cuda
full=" tree ${FULL:-} "
pe_reps="${PE_REPS:-20}"; pe_few="${PE_FEW:-3}"; pe_many=" ${PE_MANY:-baseline tree} "
pe_guarded_reps="${PE_GUARDED_REPS:-5}"; repeats="${REPEATS:-2}"; sanitize=" ${SANITIZE:-} "
jobs_max="$(nproc)"
libs="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2
  echo "revision $(cat REVISION 2>/dev/null || echo unknown)"; echo "cpus $jobs_max"
  echo "compute-sanitizer: $(command -v compute-sanitizer || echo absent)"
  echo "cuda-gdb: $(command -v cuda-gdb || echo absent)"; } > "$res/gpu.txt" 2>&1
declare -A inc=([tree]="$shim" [baseline]=guard/baseline/shims/hip_on_cuda)
versions=(baseline tree)
for v in guard/variants/*/hip_on_cuda; do
  [ -d "$v" ] || continue; name="$(basename "$(dirname "$v")")"; inc[$name]="$v"; versions+=("$name")
done
echo "versions ${versions[*]}; full:$full" >> "$res/gpu.txt"

throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done; }
lib_flags=()
if [ -n "$libs" ]; then
  lib_flags=(-I"$libs/include" -L"$libs/lib" -Xlinker "-rpath,$libs/lib")
  for lib in cublas cublasLt cusparse curand cufft; do
    so="$(cd "$libs/lib" && ls lib$lib.so* 2>/dev/null | head -1)"; lib_flags+=("-l:${so:-lib$lib.so}")
  done
fi
bench_build() {  # name source [options]
  local name="$1" src="$2"; shift 2
  throttle
  local opts=$shim/nvcc.opts; [ "$name" = native ] && opts=$shim/nvcc_platform_nvidia.opts  # no register cap
  nvcc -std=c++17 -O3 -arch=sm_90 "$@" -I$shim --options-file "$opts" -x cu "$src" -o "$bin/coll_$name" \
    --resource-usage > "$res/coll_build_$name.txt" 2>&1 &
}
fx_build() {  # version kind(g|p) fixture
  local v="$1" kind="$2" fx="$3" src extra=()
  if [ "$kind" = g ]; then src="guard/fixtures/hip_on_cuda/$fx.hip.cu"; else src="fixtures/hip_on_cuda/$fx.hip.cu"; fi
  [ "$fx" = libraries ] && extra=("${lib_flags[@]}")
  throttle
  nvcc -std=c++17 -arch=sm_90 -I"${inc[$v]}" -I$shim --options-file $shim/nvcc.opts -o "$bin/fx_${v}_${kind}_$fx" "$src" \
    "${extra[@]}" --resource-usage > "$res/fx_build_${v}_${kind}_$fx.txt" 2>&1 &
}
all_fixtures=()
for f in fixtures/hip_on_cuda/*.hip.cu; do all_fixtures+=("$(basename "$f" .hip.cu)"); done
bench_build native bench/hip_on_cuda_collectives.hip -DPORTER_HOC_PLATFORM_NVIDIA
bench_build tree_unguarded bench/hip_on_cuda_collectives.hip
for v in "${versions[@]}"; do
  bench_build "$v" guard/bench/hip_on_cuda_collectives.hip -I"${inc[$v]}"
  if [[ "$full" == *" $v "* ]]; then
    for fx in "${all_fixtures[@]}"; do
      { [ "$fx" = libraries ] && [ "$v" != tree ]; } && continue
      [ "$fx" = libraries ] && [ -z "$libs" ] && continue
      fx_build "$v" g "$fx"; fx_build "$v" p "$fx"
    done
  else
    for fx in split_wave partner_exit late_half late_steady; do fx_build "$v" p "$fx"; done
    for fx in partner_exit late_half late_steady; do fx_build "$v" g "$fx"; done
  fi
done
throttle
python3 bench/hip_on_cuda_control.py build --corpus guard/corpus --out /tmp/ctl --jobs 4 \
  --allow-failures > "$res/control_build.txt" 2>&1 &
wait
echo "builds done $(date +%T)" >> "$res/gpu.txt"

for r in $(seq 1 "$repeats"); do
  for m in baseline "${versions[@]:1}" native tree_unguarded; do
    timeout 150 "$bin/coll_$m" > "$res/collectives_${m}_$r.txt" 2>&1; echo "exit $?" >> "$res/collectives_${m}_$r.txt"
  done
done
echo "benchmarks done $(date +%T)" >> "$res/gpu.txt"

expect() { case "$1" in wave32_reduce|cub_wave32) echo EXPECTED-FAIL;; *) echo PASS;; esac; }
run_fx() {  # version kind fixture -> one line; the output's tail in a file
  local v="$1" kind="$2" fx="$3" exe="$bin/fx_${v}_${kind}_$fx" o rc line want
  want="$(expect "$fx")"
  if [ ! -x "$exe" ]; then echo "BAD  $fx: build failed: $(grep -m2 error "$res/fx_build_${v}_${kind}_$fx.txt")"; return; fi
  o="$(timeout 90 "$exe" 2>&1)"; rc=$?
  line="$(printf '%s\n' "$o" | grep -E '^(PASS|FAIL|EXPECTED-FAIL|UNEXPECTED-PASS) ' | tail -1)"
  if [ "$rc" -eq 0 ] && [ "${line%% *}" = "$want" ]; then echo "ok   $line"; else echo "BAD  $fx (exit $rc, expected $want): ${line:-no result line}"; fi
  printf '%s\n' "$o" | tail -8 > "$res/fx_run_${v}_${kind}_$fx.txt"
}
for v in "${versions[@]}"; do
  for kind in g p; do
    for fx in "${all_fixtures[@]}"; do
      [ -e "$res/fx_build_${v}_${kind}_$fx.txt" ] || continue
      [ "$fx" = partner_exit ] && [ "$kind" = p ] && continue  # below, $PE_REPS times
      run_fx "$v" "$kind" "$fx"
    done > "$res/fixtures_${v}_$kind.txt"
  done
done
echo "fixtures done $(date +%T)" >> "$res/gpu.txt"

# partner_exit, plain nvcc (the bounded wait gives each exited partner up): the failure seen once
# in session 7 (f07c4d9, "unspecified launch failure"). A core dump on a GPU exception says
# where; every run's outcome, exit status and time are logged.
mkdir -p "$res/cores"
for v in "${versions[@]}"; do
  exe="$bin/fx_${v}_p_partner_exit"; [ -x "$exe" ] || continue
  n="$pe_few"; [[ "$pe_many" == *" $v "* ]] && n="$pe_reps"
  for r in $(seq 1 "$n"); do
    t0=$(date +%s.%N)
    o="$(CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_ENABLE_LIGHTWEIGHT_COREDUMP=1 \
         CUDA_COREDUMP_FILE="$res/cores/core_${v}_$r" timeout 90 "$exe" 2>&1)"; rc=$?
    t1=$(date +%s.%N)
    echo "$v run $r exit $rc $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s: $(printf '%s\n' "$o" | grep -E '^(PASS|FAIL) ' | tail -1)"
    [ "$rc" -ne 0 ] && printf '%s\n' "$o" | tail -20 > "$res/pe_fail_${v}_$r.txt"
  done
  for r in $(seq 1 "$pe_guarded_reps"); do
    o="$(timeout 90 "$bin/fx_${v}_g_partner_exit" 2>&1)"; rc=$?
    echo "$v guarded run $r exit $rc: $(printf '%s\n' "$o" | grep -E '^(PASS|FAIL) ' | tail -1)"
  done
done > "$res/partner_exit_runs.txt"
if command -v compute-sanitizer > /dev/null; then
  for v in "${versions[@]}"; do
    exe="$bin/fx_${v}_p_partner_exit"; [ -x "$exe" ] || continue
    [[ "$sanitize" == *" $v "* ]] || continue
    timeout 45 compute-sanitizer --tool memcheck "$exe" > "$res/sanitizer_$v.txt" 2>&1; echo "exit $?" >> "$res/sanitizer_$v.txt"
  done
fi
ls -la "$res/cores" > "$res/cores.txt" 2>&1
if command -v cuda-gdb > /dev/null; then
  n_gdb=0
  for c in "$res"/cores/core_*; do
    n_gdb=$((n_gdb + 1)); [ "$n_gdb" -gt "${GDB_MAX:-6}" ] && break
    [ -e "$c" ] || continue
    timeout 60 cuda-gdb -batch -ex "target cudacore $c" -ex "info cuda kernels" -ex "bt" -ex "x/4i \$pc" \
      -ex "info cuda lanes" -ex "info registers" > "$c.gdb.txt" 2>&1
  done
fi
find "$res/cores" -type f -size +20M -delete  # keep the tar small; the listing above stays
echo "partner_exit done $(date +%T)" >> "$res/gpu.txt"

python3 bench/hip_on_cuda_control.py run --bin /tmp/ctl --out "$res/control.json" --timeout 60 > "$res/control_run.txt" 2>&1
echo "control done $(date +%T)" >> "$res/gpu.txt"
tar czf "$out/results.tgz" -C "$res" .
cat "$res/gpu.txt"
for f in "$res"/fixtures_*.txt; do echo "== $(basename "$f"): $(grep -c '^ok' "$f") ok, $(grep -c '^BAD' "$f") bad"; grep '^BAD' "$f"; done
grep -c 'exit 0 ' "$res/partner_exit_runs.txt"; grep -v 'exit 0 ' "$res/partner_exit_runs.txt" | head -20
for f in "$res"/collectives_*_*.txt; do echo "$(basename "$f" .txt): $(grep -E 'cross|down_full|ballot|wave_barrier|divergent64|mfma|status' "$f" | awk '{printf "%s=%s ", $1, $2}')"; done
for f in "$res"/fx_build_*_p_split_wave.txt; do echo "$(basename "$f"): $(grep -A2 'for _Z5waves' "$f" | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ')"; done
tail -3 "$res/control_run.txt"
