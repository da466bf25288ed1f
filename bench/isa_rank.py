"""Does porter.perfmodel.isa rank kernel variants the way the GPU does? (issue 18, item 4)

The method the verifier uses for HIP ports on gfx950 (instruction mix from the device assembly,
launch geometry, device data), applied to CUDA variants on sm_90: bench/isa_variants/variants.cu
holds families of kernels that compute the same thing (matmul, reduction, copy); this script
compiles it with nvcc (-cubin, -Xptxas -v), reads the SASS with cuobjdump, predicts each
kernel's time on the H200 and compares, within each family, every pair's predicted order with
the measured one (the TIME lines of the program's output on the GPU, median over runs).

    # on the GPU machine: nvcc -arch=sm_90 -O3 -o variants bench/isa_variants/variants.cu && ./variants > log
    python bench/isa_rank.py bench/results/isa-variants-h200-2026-12-01.log

PORTER_CUOBJDUMP names cuobjdump when the toolkit has none (Triton's wheel ships one).
A pair counts as right when the faster kernel is predicted faster; a pair measured within 5 %
counts as right when predicted within 5 % too (the verifier's "equal" band).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path

from porter import hardware
from porter.perfmodel import isa
from porter.toolchains import nvcc

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "isa_variants" / "variants.cu"
MM, RN, CN = 1024, 1 << 24, 1 << 26


def _mm(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, 3 * MM * MM * 4, 2.0 * MM * (MM * MM / threads), "flops")


def _red(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, RN * 4 + 4, RN * 4 / threads, "bytes")


def _copy(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, 2 * CN * 4, CN * 4 / threads, "bytes")


# family, measured name, symbol, launch (as main() launches it)
KERNELS = [
    ("matmul", "mm_naive", "_Z8mm_naivePKfS0_Pfi", _mm(MM * MM, 256)),
    ("matmul", "mm_naive_rowwalk", "_Z16mm_naive_rowwalkPKfS0_Pfi", _mm(MM * MM, 256)),
    ("matmul", "mm_tiled16", "_Z8mm_tiledILi16EEvPKfS1_Pfi", _mm(MM * MM, 256)),
    ("matmul", "mm_tiled32", "_Z8mm_tiledILi32EEvPKfS1_Pfi", _mm(MM * MM, 1024)),
    ("matmul", "mm_reg4x4", "_Z9mm_reg4x4PKfS0_Pfi", _mm(MM * MM // 16, 256)),
    ("reduction", "red_atomic", "_Z10red_atomicPKfPfi", _red(RN, 256)),
    ("reduction", "red_tree256", "_Z8red_treeILi256EEvPKfPfi", _red(RN, 256)),
    ("reduction", "red_tree1024", "_Z8red_treeILi1024EEvPKfPfi", _red(RN, 1024)),
    ("reduction", "red_shfl_vec4", "_Z13red_shfl_vec4PKfPfi", _red(1056 * 256, 256)),
    ("reduction", "red_shfl_scalar", "_Z15red_shfl_scalarPKfPfi", _red(1056 * 256, 256)),
    ("copy", "copy_scalar", "_Z11copy_scalarPKfPfi", _copy(CN, 256)),
    ("copy", "copy_vec4", "_Z9copy_vec4PKfPfi", _copy(CN // 4, 256)),
    ("copy", "copy_strided", "_Z12copy_stridedPKfPfi", _copy(CN, 256)),
    ("copy", "copy_loop8", "_Z10copy_loop8PKfPfi", _copy(CN // 8, 256)),
]


def measured(log: Path) -> dict[str, float]:
    runs: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "TIME":
            runs.setdefault(parts[1], []).append(float(parts[2]))
    return {k: statistics.median(v) for k, v in runs.items()}


def compile_sass(work: Path) -> list[isa.KernelIsa]:
    cubin = work / "variants.cubin"
    build = subprocess.run([str(nvcc.find_nvcc()), "-arch=sm_90", "-O3", "-cubin", "-Xptxas", "-v",
                            "-o", str(cubin), str(SOURCE)], capture_output=True, text=True, check=True)
    sass = subprocess.run([str(nvcc.find_cuobjdump()), "-sass", str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    return nvcc.parse_sass(sass, nvcc.parse_ptxas_usage(build.stderr))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path, help="output of the variants program on the GPU (TIME lines)")
    ap.add_argument("--device", default="H200")
    args = ap.parse_args()
    times = measured(args.log)
    dev = hardware.get(args.device)
    with tempfile.TemporaryDirectory() as tmp:
        kernels = {k.name: k for k in compile_sass(Path(tmp))}
    pred: dict[str, isa.IsaPrediction] = {}
    print(f"{'kernel':18} {'measured us':>12} {'predicted us':>13}  bound      trip   terms (us)")
    for family, name, symbol, launch in KERNELS:
        p = isa.predict(kernels[symbol], launch, dev)
        pred[name] = p
        terms = " ".join(f"{k}={v * 1e6:.0f}" for k, v in p.terms.items())
        print(f"{name:18} {times[name]:12.1f} {p.time_s * 1e6:13.1f}  {p.bound:9} {p.trip:6.1f}   {terms}")
    right = total = 0
    print("\npairs (a vs b: measured a/b, predicted a/b)")
    for family in dict.fromkeys(f for f, *_ in KERNELS):
        names = [n for f, n, *_ in KERNELS if f == family]
        for a, b in combinations(names, 2):
            m = times[a] / times[b]
            p = pred[a].time_s / pred[b].time_s
            _, mv = isa.verdict(times[a], times[b])
            _, pv = isa.verdict(pred[a].time_s, pred[b].time_s)
            ok = mv == pv
            right += ok
            total += 1
            print(f"  {'ok  ' if ok else 'MISS'} {family:9} {a:16} vs {b:16} measured {m:7.3f} ({mv}), predicted {p:7.3f} ({pv})")
    print(f"\nranked correctly: {right}/{total} = {right / total:.2f} of pairs (goal >= 0.80)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
