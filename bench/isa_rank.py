"""Does porter.perfmodel.isa rank kernel variants the way the GPU does? (issue 18, item 4)

The method the verifier uses for HIP ports on gfx950 (instruction mix from the device assembly,
launch geometry, device data), applied to CUDA variants on sm_90: bench/isa_variants/variants.cu
holds families of kernels that compute the same thing (matmul, reduction, copy), the set the
method was shaped on; heldout.cu (transpose, stencil, saxpy, matvec, dot) was written and timed
once after the method was set, and scores it on kernels it never saw. This script
compiles it with nvcc (-cubin, -Xptxas -v), reads the SASS with cuobjdump, predicts each
kernel's time on the H200 and compares, within each family, every pair's predicted order with
the measured one (the TIME lines of the program's output on the GPU, median over runs).

    # on the GPU machine: nvcc -arch=sm_90 -O3 -o variants bench/isa_variants/variants.cu && ./variants > log
    python bench/isa_rank.py bench/results/isa-variants-h200-2026-12-01.log
    python bench/isa_rank.py --set heldout bench/results/isa-heldout-h200-2026-12-01.log
    python bench/isa_rank.py --gfx950 bench/results/isa-variants-h200-2026-12-01.log   # porter's port, MI350X data

PORTER_CUOBJDUMP names cuobjdump; without it, PATH, the toolkit, then Triton's wheel's copy.
A pair counts as right when its predicted verdict (faster, slower, or equal within the verifier's
band, porter.verify.executors.MIN_NOISE) is the measured one.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path

from porter import hardware
from porter.perfmodel import isa
from porter.toolchains import nvcc
from porter.verify.executors import MIN_NOISE

HERE = Path(__file__).resolve().parent
MM, RN, CN = 1024, 1 << 24, 1 << 26
TN, SN, MR = 4096, 1 << 25, 8192


def _mm(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, 3 * MM * MM * 4, 2.0 * MM * (MM * MM / threads), "flops")


def _red(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, RN * 4 + 4, RN * 4 / threads, "bytes")


def _copy(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, 2 * CN * 4, CN * 4 / threads, "bytes")


def _bytes(threads: int, block: int, moved: float, read: float) -> isa.Launch:
    return isa.Launch(threads, block, moved, read / threads, "bytes")


def _mv(threads: int, block: int) -> isa.Launch:
    return isa.Launch(threads, block, (MR * MR + 2 * MR) * 4, 2.0 * MR * MR / threads, "flops")


# family, measured name, symbol, launch (as main() launches it)
HELDOUT = [
    ("transpose", "tr_naive", "_Z8tr_naivePKfPfi", _bytes(TN * TN // 4, 256, 2 * TN * TN * 4, TN * TN * 4)),
    ("transpose", "tr_shared", "_Z9tr_sharedILi0EEvPKfPfi", _bytes(TN * TN // 4, 256, 2 * TN * TN * 4, TN * TN * 4)),
    ("transpose", "tr_shared_pad", "_Z9tr_sharedILi1EEvPKfPfi", _bytes(TN * TN // 4, 256, 2 * TN * TN * 4, TN * TN * 4)),
    ("stencil", "st_global", "_Z9st_globalPKfPfi", _bytes(SN, 256, 2 * SN * 4, SN * 4)),
    ("stencil", "st_shared", "_Z9st_sharedPKfPfi", _bytes(SN, 256, 2 * SN * 4, SN * 4)),
    ("saxpy", "saxpy_scalar", "_Z12saxpy_scalarfPKfPfi", _bytes(SN, 256, 3 * SN * 4, 2 * SN * 4)),
    ("saxpy", "saxpy_vec4", "_Z10saxpy_vec4fPKfPfi", _bytes(SN // 4, 256, 3 * SN * 4, 2 * SN * 4)),
    ("saxpy", "saxpy_chunked", "_Z13saxpy_chunkedfPKfPfi", _bytes(SN // 16, 256, 3 * SN * 4, 2 * SN * 4)),
    ("matvec", "mv_row_per_thread", "_Z17mv_row_per_threadPKfS0_Pfi", _mv(MR, 256)),
    ("matvec", "mv_row_per_warp", "_Z15mv_row_per_warpPKfS0_Pfi", _mv(MR * 32, 256)),
    ("dot", "dot_block", "_Z9dot_blockPKfS0_Pfi", _bytes(1056 * 256, 256, 2 * SN * 4, 2 * SN * 4)),
    ("dot", "dot_thread_atomic", "_Z17dot_thread_atomicPKfS0_Pfi", _bytes(SN, 256, 2 * SN * 4, 2 * SN * 4)),
]
VARIANTS = [
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


SETS = {"variants": (HERE / "isa_variants" / "variants.cu", VARIANTS),
        "heldout": (HERE / "isa_variants" / "heldout.cu", HELDOUT)}


def compile_sass(source: Path, work: Path) -> list[isa.KernelIsa]:
    cubin = work / f"{source.stem}.cubin"
    build = subprocess.run([str(nvcc.find_nvcc()), "-arch=sm_90", "-O3", "-cubin", "-Xptxas", "-v",
                            "-o", str(cubin), str(source)], capture_output=True, text=True, check=True)
    sass = subprocess.run([str(nvcc.find_cuobjdump()), "-sass", str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    return nvcc.parse_sass(sass, nvcc.parse_ptxas_usage(build.stderr))


def compile_gfx950(source: Path, work: Path) -> dict[str, isa.KernelIsa]:
    """The variants as porter ports them, compiled for gfx950: kernels by their SASS (mangled) name."""
    from porter.run import port
    from porter.state import PortOptions
    from porter.toolchains import clang_hip

    src, out = work / "src", work / "port"
    src.mkdir()
    shutil.copy(source, src / source.name)
    port(src, out, PortOptions(verify=False))
    build, kernels = clang_hip.compile_unit(out / source.name, clang_hip.ClangHipOptions(include_dirs=(out,)),
                                            work / "build")
    if not build.ok:
        raise SystemExit(f"the port of {source.name} does not compile for gfx950:\n{build.stderr[-2000:]}")
    found = clang_hip.kernel_isa(Path(build.artifacts[0]).read_text(), kernels)
    by_head = {"".join(n.split("(")[0].split()).removeprefix("void"): k for n, k in found.items()}
    symbols = [s for _, _, s, _ in SETS[source.stem][1]]
    names = clang_hip.demangle(symbols)
    return {s: by_head["".join(names[s].split("(")[0].split()).removeprefix("void")] for s in symbols}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path, help="output of the variants program on the GPU (TIME lines)")
    ap.add_argument("--set", choices=sorted(SETS), default="variants",
                    help="variants: the kernels the method was shaped on; heldout: written and timed after it was set")
    ap.add_argument("--gfx950", action="store_true",
                    help="predict from porter's gfx950 port of the variants on the MI350X data instead: how far "
                         "the AMD-side reading agrees with the order measured on the H200 (a different GPU)")
    args = ap.parse_args()
    times = measured(args.log)
    dev = hardware.get("MI350X" if args.gfx950 else "H200")
    source, table = SETS[args.set]
    with tempfile.TemporaryDirectory() as tmp:
        kernels = compile_gfx950(source, Path(tmp)) if args.gfx950 else \
            {k.name: k for k in compile_sass(source, Path(tmp))}
    pred: dict[str, isa.IsaPrediction] = {}
    print(f"{'kernel':18} {'measured us':>12} {'predicted us':>13}  bound      trip   terms (us)")
    for family, name, symbol, launch in table:
        p = isa.predict(kernels[symbol], launch, dev)
        pred[name] = p
        terms = " ".join(f"{k}={v * 1e6:.0f}" for k, v in p.terms.items())
        print(f"{name:18} {times[name]:12.1f} {p.time_s * 1e6:13.1f}  {p.bound:9} {p.trip:6.1f}   {terms}")
    right = total = 0
    print("\npairs (a vs b: measured a/b, predicted a/b)")
    for family in dict.fromkeys(f for f, *_ in table):
        names = [n for f, n, *_ in table if f == family]
        for a, b in combinations(names, 2):
            m = times[a] / times[b]
            p = pred[a].time_s / pred[b].time_s
            _, mv = isa.verdict(times[a], times[b], MIN_NOISE)
            _, pv = isa.verdict(pred[a].time_s, pred[b].time_s, MIN_NOISE)
            ok = mv == pv
            right += ok
            total += 1
            print(f"  {'ok  ' if ok else 'MISS'} {family:9} {a:16} vs {b:16} measured {m:7.3f} ({mv}), predicted {p:7.3f} ({pv})")
    print(f"\nranked correctly: {right}/{total} = {right / total:.2f} of pairs (goal >= 0.80)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
