#!/usr/bin/env bash
# Compile-only evidence for the session-10 candidates (no GPU): for main's shims and each
# bench/hip_on_cuda_session9_variants/NAME.patch applied to a copy, builds the guarded
# collectives benchmark as the device batch does (-O3 -arch=sm_90, nvcc.opts) and prints, per
# loop<1..4> kernel: its registers, the YIELDs and BRA.DIV checks in its whole SASS (callees
# included), its BSSYs and 64-bit conversions (I2F.U64), and the registers of the plain-nvcc split_wave and partner_exit kernels (1024-thread
# blocks need <= 64).
#   GUARDED=guard/bench/hip_on_cuda_collectives.hip CUOBJDUMP=/path/cuobjdump bash bench/hip_on_cuda_session9_sass.sh
set -eu
src="${GUARDED:-guard/bench/hip_on_cuda_collectives.hip}"
cuobjdump="${CUOBJDUMP:-cuobjdump}"
[ -f "$src" ] || { echo "no $src: run bench/hip_on_cuda_guard_prepare.sh first (or set GUARDED)"; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
versions=(main)
mkdir -p "$tmp/main"; cp -r shims/hip_on_cuda "$tmp/main/"
for p in bench/hip_on_cuda_session9_variants/*.patch; do
  n="$(basename "$p" .patch)"; versions+=("$n")
  mkdir -p "$tmp/$n"; cp -r shims/hip_on_cuda "$tmp/$n/"
  patch -s "$tmp/$n/hip_on_cuda/porter_hoc/wave.h" "$p"
done
for v in "${versions[@]}"; do
  inc="$tmp/$v/hip_on_cuda"
  nvcc -std=c++17 -O3 -arch=sm_90 -I"$inc" --options-file "$inc/nvcc.opts" -x cu "$src" -cubin -o "$tmp/$v.cubin"
  for k in 1 2 3 4; do
    f="_Z4loopILi${k}EEvPfi"
    sass="$("$cuobjdump" -sass -fun "$f" "$tmp/$v.cubin")"
    regs="$("$cuobjdump" -res-usage "$tmp/$v.cubin" | grep -A1 "Function $f:" | grep -o 'REG:[0-9]*')"
    echo "$v loop<$k>: $regs, YIELD $(grep -c 'YIELD' <<< "$sass"), BRA.DIV $(grep -c 'BRA.DIV' <<< "$sass"), BSSY $(grep -c 'BSSY' <<< "$sass"), I2F.U64 $(grep -c 'I2F.U64' <<< "$sass")"
  done
  for fx in split_wave partner_exit; do
    nvcc -std=c++17 -arch=sm_90 -I"$inc" -Ishims/hip_on_cuda --options-file shims/hip_on_cuda/nvcc.opts -cubin \
      -o "$tmp/$fx.cubin" "fixtures/hip_on_cuda/$fx.hip.cu" --resource-usage > "$tmp/$fx.txt" 2>&1
    echo "$v $fx plain: $(grep -A2 "Function properties for _Z[0-9]" "$tmp/$fx.txt" | grep -o '[0-9]* bytes spill stores\|Used [0-9]* registers' | tr '\n' ' ')"
  done
done
