#!/bin/bash
# The lone nn K-step per SM on the H200 (2026-12-02, i18r), in one device call of at most ~200 s:
#   bash docs/evidence/perfmodel_lone_steps_h200.sh [BUDGET]
# bench/perfmodel_lone_steps.py measure: every nn config with BM 16 and 32 (mma.sync at N on 16), then BM 64, in
# fp8, bf16 and fp16, timed at M = BM, N = 132 x BN x r, K 4096 and 16384 (r = 1, 2, 3; r = 1 on 33 SMs too).
# BUDGET (default 190): seconds after this script starts by which no new config is timed. Run from the repository
# root on the device with $OUT set and the cp312 pydantic wheels in whl/. Writes $OUT/gpu.txt, $OUT/lone.json and
# $OUT/lone.log.
set -u
: "${OUT:?}"
budget=${1:-190}
start=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/tcache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
el=$(( $(date +%s) - start ))
python3 bench/perfmodel_lone_steps.py measure --deadline $(( budget - el )) --out "$OUT/lone.json" 2>&1 \
    | tee "$OUT/lone.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/gpu.txt" 2>&1
echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/lone.log"
