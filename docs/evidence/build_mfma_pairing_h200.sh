#!/usr/bin/env bash
# MFMA005 numerics under shims/hip_on_cuda (gfx950 wave64 semantics emulated on an NVIDIA GPU): the
# golden wmma port (fixtures/golden/mfma_wmma_gemm, K loop paired by MFMA005) built with nvcc
# against the emulation. The program checks itself against a float64 CPU reference (PASS:
# max_err <= 1e-3). Variants: K as in the fixture (80 = 2 pairs + an odd step paired with a zero
# half; M 80 x N 48 leaves edge warps whose wave partner exits, so split waves take the VALU path),
# K 64 and 96 (pairs only), and the same port with MFMA005's hunk undone (MFMA001 alone, unpaired).
# Then bench/mfma_pairing/numerics.hip: paired against unpaired on random f16 values (rounding).
# Then MFMA002's paired mma.sync loops (2026-12-01, second section): bench/mfma_pairing/mma_pairs.cu
# natively for sm_90 (mma_pairs_cuda: the CUDA original on the H200's own tensor cores) and ported
# by porter here (bench/mfma_pairing_isa.py --write-ports; .venv/bin/python) with its loops paired
# (mma_pairs_paired) and with each paired call written back as four unpaired steps
# (mma_pairs_unpaired), both through hip_on_cuda. Each runs as `<bin> exact` and `<bin> random`.
#   here:   bash docs/evidence/build_mfma_pairing_h200.sh <bin dir>      (nvcc 13)
#   device: for b in <bin dir>/*.bin; do $b; echo "== $b: exit $?"; done
#           for b in <bin dir>/mma_pairs_*.bin; do for m in exact random; do $b $m; echo "== $b $m: exit $?"; done; done
set -eu
bin=${1:?folder for the binaries}
mkdir -p "$bin"
inc=shims/hip_on_cuda
g=fixtures/golden/mfma_wmma_gemm
python3 - "$g" "$bin" <<'PY'
import re, sys, pathlib
g, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
text = (g / "wmma_gemm.cu").read_text()
hunk = re.compile(r"\n    decltype\(aFrag\) aFrag_k1;.*?wmma::mma_sync_k32\(acc, aFrag, bFrag, aFrag_k1, bFrag_k1, acc\);", re.S)
assert len(hunk.findall(text)) == 1 and "K = 80;" in text
variants = {"paired_k80": text, "paired_k64": text.replace("K = 80;", "K = 64;"),
            "paired_k96": text.replace("K = 80;", "K = 96;"),
            "unpaired_k80": hunk.sub("\n    wmma::mma_sync(acc, aFrag, bFrag, acc);", text).replace("kk += 2 * TILE", "kk += TILE")}
for name, src in variants.items():
    (out / f"{name}.cu").write_text(src)
PY
for src in "$bin"/*.cu; do
  nvcc -std=c++17 -arch=sm_90 -I"$inc" --options-file "$inc/nvcc.opts" -I"$g" -x cu "$src" -o "${src%.cu}.bin"
done
nvcc -std=c++17 -arch=sm_90 -I"$inc" --options-file "$inc/nvcc.opts" -I"$g" -x cu bench/mfma_pairing/numerics.hip \
  -o "$bin/numerics.bin"
mkdir -p "$bin/mma_pairs"
${PYTHON:-.venv/bin/python} bench/mfma_pairing_isa.py --write-ports "$bin/mma_pairs"
for v in paired unpaired; do
  nvcc -std=c++17 -arch=sm_90 -I"$inc" --options-file "$inc/nvcc.opts" -I"$bin/mma_pairs" -x cu \
    "$bin/mma_pairs/mma_pairs_$v.cu" -o "$bin/mma_pairs_$v.bin"
done
nvcc -std=c++17 -arch=sm_90 -O3 bench/mfma_pairing/mma_pairs.cu -o "$bin/mma_pairs_cuda.bin"
ls "$bin"
