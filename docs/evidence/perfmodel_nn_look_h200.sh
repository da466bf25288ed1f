#!/bin/bash
# One declared nn look of bench/perfmodel_validate.py on the H200, in one device call:
#   bash docs/evidence/perfmodel_nn_look_h200.sh SET DTYPES BUDGET
# SET is a `measure --set` name (nn-eleventh, nn-twelfth, nn-thirteenth, nn-fp16-first, nn-fourteenth, nn-fifteenth,
# nn-sixteenth), DTYPES its --dtypes,
# BUDGET the seconds after this script starts by which the measure stops starting new shapes (--deadline is that,
# less the setup); what the deadline cuts (the shapes each set measures last) stays unmeasured. Run from the
# repository root on the device with $OUT set and the cp312 pydantic wheels in whl/. Writes $OUT/gpu.txt,
# $OUT/pm-SET.json and $OUT/measure-SET.log.
set -u
: "${OUT:?}"
set_name=${1:?SET}
dtypes=${2:?DTYPES}
budget=${3:?BUDGET}
start=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/tcache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
el=$(( $(date +%s) - start ))
python3 bench/perfmodel_validate.py measure --variant nn --set "$set_name" --dtypes "$dtypes" \
    --deadline $(( budget - el )) --out "$OUT/pm-$set_name.json" 2>&1 | tee "$OUT/measure-$set_name.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/gpu.txt" 2>&1
echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/measure-$set_name.log"
