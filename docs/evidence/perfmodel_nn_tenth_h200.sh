#!/bin/bash
# Tenth look (2026-12-01, i18j): the nn fit extras and the nn unseen set on the H200, in one device call.
# Run from the repository root on the device with $OUT set and the cp312 pydantic wheels in whl/.
# bf16 and fp8 first; fp16 only if the first run ended early enough to leave it time (same shapes).
set -u
: "${OUT:?}"
start=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/tcache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
python3 bench/perfmodel_validate.py measure --variant nn --set nn-tenth --dtypes bf16,fp8 --deadline 330 \
    --out "$OUT/pm-nn-tenth.json" 2>&1 | tee "$OUT/measure-nn-tenth.log"
el=$(( $(date +%s) - start ))
if [ "$el" -lt 250 ]; then
  python3 bench/perfmodel_validate.py measure --variant nn --set nn-tenth --dtypes fp16 --deadline $(( 380 - el )) \
      --out "$OUT/pm-nn-tenth-fp16.json" 2>&1 | tee "$OUT/measure-nn-tenth-fp16.log"
else
  echo "fp16 not started: $el s elapsed" | tee -a "$OUT/measure-nn-tenth.log"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/gpu.txt" 2>&1
echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/measure-nn-tenth.log"
