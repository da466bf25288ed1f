#!/bin/bash
# First nn fp16 look (2026-12-01, i18n): the nn fp16 unseen-1 set (bench/perfmodel_validate.py nn_fp16_first_set) on the
# H200, in one device call of at most 240 s, its own call after the thirteenth look's. Run from the repository root on
# the device with $OUT set and the cp312 pydantic wheels in whl/. fp16 only; --deadline (seconds after the measure
# started) stops new shapes so the call ends inside its limit; what it cuts (the controls, measured last) stays
# unmeasured.
set -u
: "${OUT:?}"
start=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/tcache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
el=$(( $(date +%s) - start ))
python3 bench/perfmodel_validate.py measure --variant nn --set nn-fp16-first --dtypes fp16 \
    --deadline $(( 218 - el )) --out "$OUT/pm-nn-fp16-first.json" 2>&1 | tee "$OUT/measure-nn-fp16-first.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/gpu.txt" 2>&1
echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/measure-nn-fp16-first.log"
