"""MFMA005's paired K loop against the same port without it: the gfx950 ISA statistics (issue 18, item 5).

Compiles the golden wmma port (fixtures/golden/mfma_wmma_gemm: MFMA001 + MFMA005) and the same
port with MFMA005's hunk undone (MFMA001 alone: one porter_wmma::mma_sync per 16-deep K step) for
gfx950 with porter's clang 22 wrapper, with the K loop's bound as the kernel has it (runtime k)
and fixed to 32 / 64 / 80 (clang then folds or unrolls the loop), and prints what the report
shows for each kernel (KernelResources: v_mfma count, VGPRs, spills, occupancy) plus the MFMAs
in the K loop, the K steps one iteration covers, v_permlane32_swap and ds_bpermute counts and the
global loads. Needs clang++ 22 only (no GPU).

    python bench/mfma_pairing_isa.py > docs/evidence/mfma-pairing-gfx950-isa-2026-12-01.txt
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

GOLDEN = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
# MFMA005's hunk in the golden port, and the step MFMA001 alone leaves there.
PAIRED_HUNK = re.compile(r"\n    decltype\(aFrag\) aFrag_k1;.*?wmma::mma_sync_k32\(acc, aFrag, bFrag, aFrag_k1, bFrag_k1, acc\);",
                         re.S)
UNPAIRED_STEP = "\n    wmma::mma_sync(acc, aFrag, bFrag, acc);"


def variants() -> dict[str, tuple[str, int]]:
    """name -> (source, K steps per loop iteration)."""
    paired = (GOLDEN / "wmma_gemm.cu").read_text()
    if len(PAIRED_HUNK.findall(paired)) != 1 or "kk += 2 * TILE" not in paired:
        raise SystemExit(f"{GOLDEN}: MFMA005's paired loop not found; regenerate the golden port")
    unpaired = PAIRED_HUNK.sub(UNPAIRED_STEP, paired).replace("kk += 2 * TILE", "kk += TILE")
    out = {}
    for depth in (None, 32, 64, 80):
        label = "runtime" if depth is None else str(depth)
        p, u = paired, unpaired
        if depth is not None:
            p = p.replace("kk < k", f"kk < {depth}").replace("(kk + TILE) < k", f"(kk + TILE) < {depth}")
            u = u.replace("kk < k", f"kk < {depth}")
        out[f"K={label} paired"] = (p, 2)
        out[f"K={label} unpaired"] = (u, 1)
    return out


def main() -> None:
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit, kernel_isa

    print("gfx950, clang 22 (porter.toolchains.clang_hip), kernel wmma_gemm of fixtures/golden/mfma_wmma_gemm")
    print(f"{'variant':<20} {'v_mfma':>6} {'in K loop':>9} {'K steps/iter':>12} {'permlane32':>10} "
          f"{'bpermute':>8} {'gl.loads':>8} {'VGPRs':>5} {'spill':>5} {'occ':>3}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (text, steps) in variants().items():
            d = Path(tmp) / name.replace(" ", "_").replace("=", "")
            d.mkdir()
            (d / "wmma_gemm.cu").write_text(text)
            (d / "porter_compat.h").write_text((GOLDEN / "porter_compat.h").read_text())
            build, kernels = compile_unit(d / "wmma_gemm.cu", ClangHipOptions(arch="gfx950", include_dirs=(d,)), d / "b")
            if not build.ok:
                raise SystemExit(f"{name}: {build.stderr[-2000:]}")
            (k,) = [k for k in kernels if "wmma_gemm" in k.kernel]
            asm = Path(build.artifacts[0]).read_text()
            isa = kernel_isa(asm, kernels)[k.kernel]
            in_loop = max((sum(isa.instrs[i].cls == "matrix" for i in loop) for loop in isa.loops), default=0)
            loads = sum(i.cls == "global_load" for i in isa.instrs)
            print(f"{name:<20} {k.mfma_count:>6} {in_loop:>9} {steps if in_loop else '-':>12} "
                  f"{asm.count('v_permlane32_swap'):>10} {asm.count('ds_bpermute'):>8} {loads:>8} "
                  f"{k.vgprs:>5} {k.vgpr_spill:>5} {k.occupancy:>3}")


if __name__ == "__main__":
    main()
