#!/usr/bin/env bash
# Nsight Compute batch for issue 13 item 4 (why the emulated ballot costs 11x a native one while
# shfl_xor(32) costs 10x): per-SASS-instruction warp stall samples of the collectives benchmark's
# tight loops, emulated and native, in one device call. From the repository root on an NVIDIA
# GPU machine, after bench/hip_on_cuda_profile_prepare.sh ran where tree-sitter is (guard/bench:
# the guarded benchmark source; guard/baseline: main's shims; guard/profile_variants/NAME: other
# versions of wave.h).
#
# Builds (the same source and flags as bench/hip_on_cuda_session8_device.sh's "baseline" and
# "native", plus -lineinfo for the source view; -lineinfo leaves the machine code alone: the
# script compares the SASS of both builds and says so in gpu.txt):
#   coll_baseline   guard/bench/hip_on_cuda_collectives.hip, -I guard/baseline/shims/hip_on_cuda
#   coll_native     bench/hip_on_cuda_collectives.hip -DPORTER_HOC_PLATFORM_NVIDIA (CUDA's warp ops)
#   coll_NAME       the guarded source with guard/profile_variants/NAME/hip_on_cuda (ballot only)
# Then, one program at a time: each binary once unprofiled (its own ms per launch), then ncu on
# one launch (the second: the first is the warm-up) of each loop kernel, filtered by its mangled
# name: loop<1> shfl_xor(32) "xor_cross", loop<2> 64-lane shfl_down "down_full", loop<3> ballot,
# loop<4> the bare wave barrier (native: __syncwarp), with the sections WarpStateStats,
# SourceCounters, SpeedOfLight, LaunchStats, Occupancy, the source imported, and exported as
#   src_VERSION_CASE.csv      ncu --page source --csv --print-source sass (per-instruction samples)
#   details_VERSION_CASE.txt  ncu --page details --print-details all (the sections, the stall table)
#   raw_VERSION_CASE.csv      ncu --page raw --csv (every metric, the duration among them)
# read by bench/hip_on_cuda_profile_read.py. Results: $OUT/results.tgz (logs, CSV, text, SASS
# listings), $OUT/reports.tgz (the .ncu-rep files, when under 15 MB), $OUT/summary.txt.
# Exit status: 0 all profiled; 3 no GPU; 4 no ncu, or ncu cannot read the counters (the timings
# and SASS listings still come back); 5 a build failed.
#   OUT=$OUT bash bench/hip_on_cuda_profile_device.sh
# Order: baseline and native of the first two cases, the variants, the other cases. Every step's
# timeout ends by DEADLINE_S (default 285) seconds after the start; a profile that would start
# with less than MIN_LEFT_S (default 45) seconds left is skipped (and said). Under 300 s in all.
# Environment: PROFILE_CASES (default "ballot xor_cross down_full barrier"), VARIANT_CASES
# (default "ballot"), NCU (a path to ncu), NCU_TIMEOUT (s per profile, default 40),
# NCU_SAMPLING (--warp-sampling-interval, default auto), DEADLINE_S, MIN_LEFT_S.
set -u
out="${OUT:-/tmp/hoc_prof_out}"; res=/tmp/hoc_prof; bin=/tmp/hoc_prof_bin
rm -rf "$res" "$bin"; mkdir -p "$out" "$res/ncu" "$bin"
shim=shims/hip_on_cuda
cases="${PROFILE_CASES:-ballot xor_cross down_full barrier}"
variant_cases="${VARIANT_CASES:-ballot}"
ncu_timeout="${NCU_TIMEOUT:-40}"; sampling="${NCU_SAMPLING:-auto}"
t_start=$(date +%s); deadline=$(( t_start + ${DEADLINE_S:-285} ))
tl() {  # a timeout: $1 seconds, or what is left before the deadline (at least 1)
  local l=$(( deadline - $(date +%s) )); [ "$l" -gt "$1" ] && l="$1"; [ "$l" -lt 1 ] && l=1; echo "$l"
}
declare -A kind=([xor_cross]=1 [down_full]=2 [ballot]=3 [barrier]=4)
say() { echo "$*" | tee -a "$res/gpu.txt"; }

finish() {  # exit status; packs what exists
  local rc="$1"
  say "finished $(date +%T) after $(( $(date +%s) - t_start )) s, exit $rc"
  ( cd "$res" && ls -la . ncu ) > "$res/listing.txt" 2>&1
  tar czf "$out/results.tgz" -C "$res" .
  if ls "$bin"/*.ncu-rep > /dev/null 2>&1; then
    tar czf "$out/reports.tgz" -C "$bin" $(cd "$bin" && ls *.ncu-rep)
    if [ "$(stat -c %s "$out/reports.tgz")" -gt 15000000 ]; then
      rm -f "$out/reports.tgz"; say "reports.tgz over 15 MB: not kept (the exports are in results.tgz)"
    fi
  fi
  cp "$res/gpu.txt" "$out/summary.txt"
  [ -f "$res/read.txt" ] && cat "$res/read.txt" >> "$out/summary.txt"
  exit "$rc"
}

# --- tools ---------------------------------------------------------------------------------
find_ncu() {
  local c
  if [ -n "${NCU:-}" ] && [ -x "$NCU" ]; then echo "$NCU"; return; fi
  c="$(command -v ncu 2>/dev/null)" && { echo "$c"; return; }
  [ -x /usr/local/cuda/bin/ncu ] && { echo /usr/local/cuda/bin/ncu; return; }
  for c in $(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | sort -V -r); do
    [ -x "${c}ncu" ] && { echo "${c}ncu"; return; }
  done
  return 1
}
ncu_bin="$(find_ncu)" || ncu_bin=""
cuobjdump_bin="$(command -v cuobjdump 2>/dev/null || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)"
{ echo "revision $(cat REVISION 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | head -3
  nvcc --version 2>&1 | tail -2
  echo "ncu: ${ncu_bin:-ABSENT (looked at NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/)}"
  [ -n "$ncu_bin" ] && "$ncu_bin" --version 2>&1 | tail -1
  echo "cuobjdump: ${cuobjdump_bin:-absent}"; echo "cases: $cases; variant cases: $variant_cases"
} >> "$res/gpu.txt" 2>&1
cat "$res/gpu.txt"
for f in guard/bench/hip_on_cuda_collectives.hip guard/baseline/shims/hip_on_cuda/porter_hoc/wave.h; do
  [ -f "$f" ] || { say "MISSING $f: run bench/hip_on_cuda_profile_prepare.sh first (where porter is installed)"; finish 5; }
done

# --- builds (parallel, then SASS listings) -----------------------------------------------------
versions=(baseline native)
declare -A inc=([baseline]=guard/baseline/shims/hip_on_cuda)
for v in guard/profile_variants/*/hip_on_cuda; do
  [ -d "$v" ] || continue; n="$(basename "$(dirname "$v")")"; inc[$n]="$v"; versions+=("$n")
done
jobs_max="${BUILD_JOBS:-$(nproc)}"
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done; }
build() {  # name lineinfo(-lineinfo|"") source [options]
  local name="$1" li="$2" src="$3"; shift 3
  local opts=$shim/nvcc.opts; [ "$name" = native ] && opts=$shim/nvcc_platform_nvidia.opts  # no register cap
  timeout 200 nvcc -std=c++17 -O3 -arch=sm_90 $li "$@" -I$shim --options-file "$opts" -x cu "$src" \
    -o "$bin/coll_$name" --resource-usage > "$res/build_$name.txt" 2>&1
  echo "exit $?" >> "$res/build_$name.txt"
}
for v in "${versions[@]}"; do
  throttle
  if [ "$v" = native ]; then
    build native -lineinfo bench/hip_on_cuda_collectives.hip -DPORTER_HOC_PLATFORM_NVIDIA &
  else
    build "$v" -lineinfo guard/bench/hip_on_cuda_collectives.hip -I"${inc[$v]}" &
  fi
done
throttle; build baseline_nolineinfo "" guard/bench/hip_on_cuda_collectives.hip -I"${inc[baseline]}" &
wait
for v in "${versions[@]}" baseline_nolineinfo; do
  [ -x "$bin/coll_$v" ] || { say "BUILD FAILED coll_$v: $(grep -m3 error "$res/build_$v.txt")"; finish 5; }
done
say "builds done $(date +%T): ${versions[*]}"
grep -A2 "Function properties for _Z4loopILi[1-4]EEvPfi" "$res/build_baseline.txt" \
  | grep -o "_Z4loopILi[0-9]EEvPfi\|Used [0-9]* registers" | paste - - >> "$res/gpu.txt"
if [ -n "$cuobjdump_bin" ]; then
  for v in "${versions[@]}" baseline_nolineinfo; do
    "$cuobjdump_bin" -sass "$bin/coll_$v" > "$res/sass_$v.txt" 2>&1
  done
  # the machine code with and without -lineinfo (the line comments removed)
  strip_lines() { grep -v '^\s*//##' "$1" | grep -v '^\s*$'; }
  if cmp -s <(strip_lines "$res/sass_baseline.txt") <(strip_lines "$res/sass_baseline_nolineinfo.txt"); then
    say "SASS of coll_baseline with and without -lineinfo: identical"
  else
    say "SASS of coll_baseline with and without -lineinfo: DIFFERENT (diff in sass_lineinfo.diff)"
    diff <(strip_lines "$res/sass_baseline.txt") <(strip_lines "$res/sass_baseline_nolineinfo.txt") | head -200 > "$res/sass_lineinfo.diff"
  fi
fi

# --- GPU -----------------------------------------------------------------------------------
if ! nvidia-smi -L > "$res/gpus.txt" 2>&1 || ! grep -q GPU "$res/gpus.txt"; then
  say "NO GPU: nvidia-smi lists none ($(head -1 "$res/gpus.txt")). The builds above are done; nothing ran."
  finish 3
fi
for v in "${versions[@]}"; do  # each binary alone, its own timings (as the session-8 batch)
  timeout "$(tl 60)" "$bin/coll_$v" > "$res/time_$v.txt" 2>&1; echo "exit $?" >> "$res/time_$v.txt"
  say "time $v: $(grep -E '^(shfl_xor_cross|shfl_down_full|ballot|wave_barrier|status) ' "$res/time_$v.txt" | awk '{printf "%s=%s ", $1, $2}')"
done

# --- ncu -----------------------------------------------------------------------------------
if [ -z "$ncu_bin" ]; then
  say "NO NCU: Nsight Compute's CLI was not found (NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/)."
  say "Nothing profiled; the timings and SASS listings are in results.tgz."
  finish 4
fi
# One small profile first: can ncu read the counters here (a gVisor machine cannot: LibraryNotLoaded)?
timeout "$(tl 60)" "$ncu_bin" --clock-control none --kernel-name-base mangled --kernel-name _Z4loopILi1EEvPfi \
  --launch-skip 1 --launch-count 1 --section LaunchStats --section WarpStateStats "$bin/coll_native" \
  > "$res/ncu/probe.txt" 2>&1
probe_rc=$?
if [ "$probe_rc" -ne 0 ] || grep -qE '==ERROR==|LibraryNotLoaded|ERR_NVGPUCTRPERM' "$res/ncu/probe.txt" \
   || ! grep -q 'Warp State Statistics' "$res/ncu/probe.txt"; then
  say "NCU CANNOT PROFILE on this machine (exit $probe_rc): $(grep -m2 -E 'ERROR|ERR_|LibraryNotLoaded' "$res/ncu/probe.txt")"
  say "Nothing profiled; ncu/probe.txt has its output; the timings and SASS listings are in results.tgz."
  finish 4
fi
say "ncu probe ok $(date +%T)"

profile() {  # version case
  local v="$1" c="$2" k="_Z4loopILi${kind[$2]}EEvPfi" rep="$bin/${1}_${2}" rc
  [ $(( deadline - $(date +%s) )) -lt "${MIN_LEFT_S:-45}" ] && { say "skip $v $c: under ${MIN_LEFT_S:-45} s left"; return; }
  timeout "$(tl "$ncu_timeout")" "$ncu_bin" --clock-control none --kernel-name-base mangled --kernel-name "$k" \
    --launch-skip 1 --launch-count 1 --warp-sampling-interval "$sampling" \
    --section WarpStateStats --section SourceCounters --section SpeedOfLight --section LaunchStats \
    --section Occupancy --import-source yes -f -o "$rep" "$bin/coll_$v" > "$res/ncu/profile_${v}_$c.txt" 2>&1
  rc=$?
  if [ ! -f "$rep.ncu-rep" ]; then say "PROFILE FAILED $v $c (exit $rc): $(grep -m2 -E 'ERROR|WARN' "$res/ncu/profile_${v}_$c.txt")"; return; fi
  # source page: SASS with per-instruction metrics (older versions without --print-source: plain)
  timeout "$(tl 20)" "$ncu_bin" -i "$rep.ncu-rep" --page source --csv --print-source sass > "$res/ncu/src_${v}_$c.csv" 2> "$res/ncu/src_${v}_$c.err" \
    || timeout "$(tl 20)" "$ncu_bin" -i "$rep.ncu-rep" --page source --csv > "$res/ncu/src_${v}_$c.csv" 2>> "$res/ncu/src_${v}_$c.err"
  timeout "$(tl 20)" "$ncu_bin" -i "$rep.ncu-rep" --page details --print-details all > "$res/ncu/details_${v}_$c.txt" 2>&1 \
    || timeout "$(tl 20)" "$ncu_bin" -i "$rep.ncu-rep" --page details > "$res/ncu/details_${v}_$c.txt" 2>&1
  timeout "$(tl 20)" "$ncu_bin" -i "$rep.ncu-rep" --page raw --csv > "$res/ncu/raw_${v}_$c.csv" 2>&1
  say "profiled $v $c (exit $rc, $(wc -l < "$res/ncu/src_${v}_$c.csv") source rows) $(date +%T)"
}
read -r -a case_list <<< "$cases"
for c in "${case_list[@]:0:2}"; do profile baseline "$c"; profile native "$c"; done
for v in "${versions[@]}"; do
  case "$v" in baseline|native) continue;; esac
  for c in $variant_cases; do profile "$v" "$c"; done
done
for c in "${case_list[@]:2}"; do profile baseline "$c"; profile native "$c"; done
head -c 4000 "$(ls "$res"/ncu/src_baseline_ballot.csv 2>/dev/null || ls "$res"/ncu/src_*.csv | head -1)" > "$res/ncu/src_head.txt" 2>/dev/null
if command -v python3 > /dev/null; then
  timeout "$(tl 30)" python3 bench/hip_on_cuda_profile_read.py "$res/ncu" > "$res/read.txt" 2>&1
  say "reader exit $?"
fi
finish 0
