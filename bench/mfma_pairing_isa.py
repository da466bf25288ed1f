"""Paired K steps against unpaired ones: the gfx950 ISA statistics (issue 18, item 5).

Three sections, each compiled for gfx950 with porter's clang 22 wrapper (no GPU), printing what the
report shows per kernel (KernelResources: v_mfma count, VGPRs, spills, occupancy) plus the MFMAs
in a loop (the most in any one: a K loop left rolled), v_permlane32_swap and ds_bpermute counts (in the kernel's own body) and global loads:

1. wmma (MFMA005): the golden wmma port (fixtures/golden/mfma_wmma_gemm: MFMA001 + MFMA005) and
   the same port with MFMA005's hunk undone (one porter_wmma::mma_sync per 16-deep K step), with
   the K loop's bound as the kernel has it (runtime k) and fixed to 32 / 64 / 80.
2. mma.sync (MFMA002, paired by MFMA006): bench/mfma_pairing/mma_pairs.cu ported by porter (its two K
   loop nests paired into porter_mma_m16n16k32_{f16,bf16}) and the same port with each paired call written
   back as its four porter_mma_m16n8k16 steps, with K 96 (3 chunks of 2 k steps) and K 32 (one
   chunk: one pair per n8 tile pair).
3. With --corpus DIR or PORTER_CORPUS (a folder holding NVIDIA+cuda-samples): cuda-samples'
   cudaTensorCoreGemm (wmma fragments shaped by WMMA_M/N/K macros) ported by porter with its
   Common headers, simple_wmma_gemm as MFMA005 pairs it and with the hunk undone.

    python bench/mfma_pairing_isa.py [--corpus /work/src] > docs/evidence/mfma-pairing-gfx950-isa-2026-12-01b.txt
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

GOLDEN = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
PAIRS = ROOT / "bench" / "mfma_pairing" / "mma_pairs.cu"
SAMPLE = Path("NVIDIA+cuda-samples") / "Samples" / "3_CUDA_Features" / "cudaTensorCoreGemm"
COMMON = Path("NVIDIA+cuda-samples") / "Common"
COMMON_HEADERS = ("helper_cuda.h", "helper_functions.h", "helper_string.h", "helper_image.h", "helper_timer.h",
                  "exception.h")
# MFMA005's hunk (the next step's fragments, then the paired call) and its doubled stride.
WMMA_HUNK = re.compile(r"\n[ \t]*decltype\((\w+)\) \1_k1;.*?([\w:]*)mma_sync_k32\((\w+), (\w+), (\w+), \w+, \w+, \w+\);", re.S)
WMMA_STRIDE = re.compile(r"(\w+) \+= 2 \* (\w+)\)")
# MFMA006's paired call and its loops' doubled steps.
MMA_PAIRED = re.compile(r"porter_mma_m16n16k32_(f16|bf16)\(([^;]*)\);")
MMA_STRIDE = re.compile(r"(for \(int (\w+) = 0; \2 < \w+; )\2 \+= 2\)")


def unpair_wmma(text: str) -> str:
    """The port as MFMA001 alone leaves it: each paired step back to one mma_sync per K step."""
    out, count = WMMA_HUNK.subn(lambda m: f"\n{_indent_of(m)}{m[2]}mma_sync({m[3]}, {m[4]}, {m[5]}, {m[3]});", text)
    if count != 1:
        raise SystemExit(f"expected one MFMA005 hunk, found {count}")
    return WMMA_STRIDE.sub(r"\1 += \2)", out, count=1)


def _indent_of(m: re.Match[str]) -> str:
    line = m[0].lstrip("\n")
    return line[:len(line) - len(line.lstrip())]


def unpair_mma(text: str) -> str:
    """Each porter_mma_m16n16k32 call back as its four m16n8k16 steps (k0 n0, k0 n1, k1 n0, k1 n1)."""

    def four(m: re.Match[str]) -> str:
        c0, c1, a0, a1, b00, b01, b10, b11 = (x.strip() for x in m[2].split(", "))
        calls = []
        for c, a, b in ((c0, a0, b00), (c1, a0, b01), (c0, a1, b10), (c1, a1, b11)):
            regs = [f"{c}[{i}]" for i in range(4)]
            args = regs + [f"{a}[{i}]" for i in range(4)] + [f"{b}[0]", f"{b}[1]"] + regs
            calls.append(f"porter_mma_m16n8k16_{m[1]}({', '.join(args)});")
        return "{ " + " ".join(calls) + " }"

    out, count = MMA_PAIRED.subn(four, text)
    if count == 0:
        raise SystemExit("no porter_mma_m16n16k32 call in the port: MFMA006 did not pair")
    return out


def bodies(asm: str) -> dict[str, str]:
    """Each function's assembly by its (mangled) symbol."""
    found = {}
    for m in re.finditer(r"^(_Z\w+):.*?^\.Lfunc_end\d+:", asm, re.M | re.S):
        found[m[1]] = m[0]
    return found


def compile_and_count(label: str, folder: Path, unit: str, includes: tuple[Path, ...], kernels_like: str) -> list[str]:
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit, kernel_isa

    build, kernels = compile_unit(folder / unit, ClangHipOptions(arch="gfx950", include_dirs=(folder, *includes)),
                                  folder / "b")
    if not build.ok:
        raise SystemExit(f"{label}: {build.stderr[-3000:]}")
    asm = Path(build.artifacts[0]).read_text()
    isas = kernel_isa(asm, kernels)
    own = bodies(asm)
    rows = []
    for k in kernels:
        if not re.search(kernels_like, k.kernel):
            continue
        isa = isas[k.kernel]
        short = k.kernel.split("(")[0]
        body = next((b for sym, b in own.items() if sym.startswith(f"_Z{len(short)}{short}")), "")
        in_loop = max((sum(isa.instrs[i].cls == "matrix" for i in loop) for loop in isa.loops), default=0)
        loads = sum(i.cls == "global_load" for i in isa.instrs)
        name = f"{label} {k.kernel.split('(')[0]}"
        rows.append(f"{name:<34} {k.mfma_count:>6} {in_loop if isa.loops else '-':>9} "
                    f"{body.count('v_permlane32_swap'):>10} {body.count('ds_bpermute'):>8} {loads:>8} "
                    f"{k.vgprs:>5} {k.vgpr_spill:>5} {k.occupancy:>3}")
    return rows


HEADER = (f"{'variant':<34} {'v_mfma':>6} {'in a loop':>9} {'permlane32':>10} {'bpermute':>8} {'gl.loads':>8} "
          f"{'VGPRs':>5} {'spill':>5} {'occ':>3}")


def wmma_section(tmp: Path) -> None:
    paired = (GOLDEN / "wmma_gemm.cu").read_text()
    unpaired = unpair_wmma(paired)
    print("1. wmma (MFMA005), fixtures/golden/mfma_wmma_gemm, kernel wmma_gemm")
    print(HEADER)
    for depth in (None, 32, 64, 80):
        tag = "runtime" if depth is None else str(depth)
        for name, text in (("paired", paired), ("unpaired", unpaired)):
            if depth is not None:
                text = text.replace("kk < k", f"kk < {depth}").replace("(kk + TILE) < k", f"(kk + TILE) < {depth}")
            d = tmp / f"wmma_{tag}_{name}"
            d.mkdir()
            (d / "wmma_gemm.cu").write_text(text)
            shutil.copy(GOLDEN / "porter_compat.h", d)
            for row in compile_and_count(f"K={tag} {name}", d, "wmma_gemm.cu", (), "wmma_gemm"):
                print(row)


def mma_ports(tmp: Path) -> tuple[str, str, Path]:
    """(paired port, unpaired port, porter_compat.h) of bench/mfma_pairing/mma_pairs.cu."""
    from porter.run import port
    from porter.state import PortOptions

    src = tmp / "pairs_src"
    src.mkdir()
    shutil.copy(PAIRS, src)
    out = tmp / "pairs_port"
    port(src, out, PortOptions(verify=False))
    paired = (out / "mma_pairs.cu").read_text()
    return paired, unpair_mma(paired), out / "porter_compat.h"


def write_ports(folder: Path) -> None:
    """mma_pairs_paired.cu, mma_pairs_unpaired.cu and porter_compat.h into `folder` (for the H200 build)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        paired, unpaired, compat = mma_ports(Path(tmp))
        (folder / "mma_pairs_paired.cu").write_text(paired)
        (folder / "mma_pairs_unpaired.cu").write_text(unpaired)
        shutil.copy(compat, folder)


def mma_section(tmp: Path) -> None:
    paired, unpaired, compat = mma_ports(tmp)
    print()
    print("2. mma.sync m16n8k16 (MFMA002 + MFMA006), bench/mfma_pairing/mma_pairs.cu as porter ports it;")
    print("   f16_tiles: wrapper calls, 2 k steps x 2 n8 tiles per chunk; bf16_tiles: asm, 4 n8 tiles x 2 k steps")
    print(HEADER)
    for depth in (96, 32):
        for name, text in (("paired", paired), ("unpaired", unpaired)):
            text = text.replace("constexpr int M = 80, K = 96;", f"constexpr int M = 80, K = {depth};")
            d = tmp / f"mma_{depth}_{name}"
            d.mkdir()
            (d / "mma_pairs.cu").write_text(text)
            shutil.copy(compat, d)
            for row in compile_and_count(f"K={depth} {name}", d, "mma_pairs.cu", (), "_tiles"):
                print(row)


def sample_section(tmp: Path, corpus: Path) -> None:
    from porter.run import port
    from porter.state import PortOptions

    sample, common = corpus / SAMPLE, corpus / COMMON
    if not sample.is_dir() or not common.is_dir():
        raise SystemExit(f"{corpus}: no {SAMPLE} or {COMMON}; pass --corpus with the extracted cuda-samples")
    src, csrc = tmp / "tcg_src", tmp / "common_src"
    shutil.copytree(sample, src, ignore=shutil.ignore_patterns(".vscode"))
    csrc.mkdir()
    for h in COMMON_HEADERS:
        shutil.copy(common / h, csrc)
    port(src, tmp / "tcg_port", PortOptions(verify=False))
    port(csrc, tmp / "common_port", PortOptions(verify=False))
    paired = (tmp / "tcg_port" / "cudaTensorCoreGemm.cu").read_text()
    print()
    print(f"3. cuda-samples {SAMPLE.name} (WMMA_M/N/K macro shapes), as porter ports it with Common/helper_*.h")
    print(HEADER)
    for name, text in (("paired", paired), ("unpaired", unpair_wmma(paired))):
        d = tmp / f"tcg_{name}"
        d.mkdir()
        (d / "cudaTensorCoreGemm.cu").write_text(text)
        shutil.copy(tmp / "tcg_port" / "porter_compat.h", d)
        for row in compile_and_count(f"sample {name}", d, "cudaTensorCoreGemm.cu", (tmp / "common_port",), "wmma_gemm"):
            print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=os.environ.get("PORTER_CORPUS"),
                        help="folder holding NVIDIA+cuda-samples (default: $PORTER_CORPUS; section 3 needs it)")
    parser.add_argument("--write-ports", type=Path, metavar="DIR",
                        help="only write mma_pairs.cu's paired and unpaired ports (and porter_compat.h) into DIR")
    args = parser.parse_args()
    if args.write_ports is not None:
        write_ports(args.write_ports)
        return
    print("gfx950, clang 22 (porter.toolchains.clang_hip); bpermute / permlane32: in the kernel's own body")
    with tempfile.TemporaryDirectory() as tmp:
        wmma_section(Path(tmp))
        mma_section(Path(tmp))
        if args.corpus is None:
            print("\n3. cuda-samples cudaTensorCoreGemm: skipped (no --corpus / PORTER_CORPUS)")
        else:
            sample_section(Path(tmp), args.corpus)


if __name__ == "__main__":
    main()
