"""MFMA001-MFMA004 and SHIM020 beyond their golden examples: the rocWMMA option (golden text only,
rocWMMA is not installable here), what is left alone, and the ISA the ported fixtures compile to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter import rules
from porter.rules import RuleContext, run_rules
from porter.run import port
from porter.state import PortOptions
from porter.syntax import SourceFile

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "fixtures" / "rules"
ROCWMMA = RuleContext(PortOptions(matrix="rocwmma"))


def _run(rule_id: str, path: Path, ctx: RuleContext = RuleContext()):
    unit = SourceFile(path.name, path.read_bytes(), "cuda")
    return run_rules(unit, [rules.get(rule_id)], ctx, agent="microarch")


def test_wmma_to_rocwmma_golden_text() -> None:
    before = RULES / "MFMA001" / "before.cu"
    result = _run("MFMA001", before, ROCWMMA)
    assert result.patch is not None
    assert result.patch.apply_to(before.read_bytes()).decode() == (RULES / "MFMA001" / "after_rocwmma.cu").read_text()


def test_unsupported_fragment_leaves_the_file_alone() -> None:
    result = _run("MFMA001", RULES / "MFMA001" / "unsupported.cu")
    assert result.patch is None
    assert any("32, 8, 16" in f.message for f in result.findings)


def test_warp_math_is_reported_not_rewritten_for_rocwmma() -> None:
    result = _run("MFMA004", RULES / "MFMA004" / "before.cu", ROCWMMA)
    assert result.patch is None and result.findings
    assert all(f.severity == "warning" for f in result.findings)


def test_rocwmma_port_golden_text(tmp_path: Path) -> None:
    out = tmp_path / "out"
    port(ROOT / "fixtures" / "mfma_wmma_gemm", out, PortOptions(verify=False, matrix="rocwmma"))
    want = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm_rocwmma" / "wmma_gemm.cu"
    assert (out / "wmma_gemm.cu").read_text() == want.read_text()
    assert "#include <rocwmma/rocwmma.hpp>" in want.read_text() and not (out / "porter_compat.h").exists()


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize(("project", "unit", "mfma"), [
    ("mfma_wmma_gemm", "wmma_gemm.cu", "v_mfma_f32_16x16x32_f16"),
    ("mfma_mma_bf16", "mma_bf16.cu", "v_mfma_f32_16x16x32_bf16"),
])
def test_ported_fixture_issues_gfx950_mfma(project: str, unit: str, mfma: str, tmp_path: Path) -> None:
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit

    out = tmp_path / "out"
    port(ROOT / "fixtures" / project, out, PortOptions(verify=False))
    build, kernels = compile_unit(out / unit, ClangHipOptions(arch="gfx950", include_dirs=(out,)), tmp_path / "build")
    assert build.ok, build.stderr[-2000:]
    assert kernels and all(k.mfma_count >= 1 for k in kernels)
    assert all(k.vgpr_spill == k.sgpr_spill == k.scratch_bytes == 0 for k in kernels)
    asm = Path(build.artifacts[0]).read_text()
    assert mfma in asm
    assert "v_mfma_f32_16x16x16" not in asm  # not the half-rate form



# MFMA005's hunk in the golden wmma port, and the loop as MFMA001 alone leaves it.
PAIRED_HUNK = re.compile(r"\n    decltype\(aFrag\) aFrag_k1;.*?wmma::mma_sync_k32\(acc, aFrag, bFrag, aFrag_k1, bFrag_k1, acc\);",
                         re.S)
UNPAIRED_STEP = "\n    wmma::mma_sync(acc, aFrag, bFrag, acc);"


@pytest.mark.toolchain("clang")
def test_paired_k_loop_halves_the_mfma_count(tmp_path: Path) -> None:
    """MFMA005 on the golden wmma port against the same port without it (MFMA001 alone), compiled for
    gfx950. Both K loops hold the kernel's 2 v_mfma (the report's KernelResources.mfma_count), but
    the paired loop covers 2 K steps per iteration: per 16x16 tile and K, the wave issues half the
    MFMAs (K 64: 4 against 8; K 80, an odd step count whose last pair has a zero half: 6 against
    10). Neither spills; only the paired one moves K halves across the wave (v_permlane32_swap)."""
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit, kernel_isa

    golden = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
    paired = (golden / "wmma_gemm.cu").read_text()
    assert len(PAIRED_HUNK.findall(paired)) == 1 and paired.count("kk += 2 * TILE") == 1
    unpaired = PAIRED_HUNK.sub(UNPAIRED_STEP, paired).replace("kk += 2 * TILE", "kk += TILE")
    found = {}
    for name, text in (("paired", paired), ("unpaired", unpaired)):
        src = tmp_path / name / "wmma_gemm.cu"
        src.parent.mkdir()
        src.write_text(text)
        (src.parent / "porter_compat.h").write_text((golden / "porter_compat.h").read_text())
        build, kernels = compile_unit(src, ClangHipOptions(arch="gfx950", include_dirs=(src.parent,)), tmp_path / name / "b")
        assert build.ok, build.stderr[-2000:]
        (kernel,) = [k for k in kernels if "wmma_gemm" in k.kernel]
        assert kernel.vgpr_spill == kernel.scratch_bytes == 0, (name, kernel)
        asm = Path(build.artifacts[0]).read_text()
        isa = kernel_isa(asm, kernels)[kernel.kernel]
        in_loop = max(sum(isa.instrs[i].cls == "matrix" for i in loop) for loop in isa.loops)
        found[name] = (kernel.mfma_count, in_loop, asm.count("v_permlane32_swap"))
    # every MFMA sits in the K loop (the split-wave VALU path's rolled loops hold none)
    assert found["paired"][:2] == found["unpaired"][:2] == (2, 2), found
    assert found["paired"][2] > 0 and found["unpaired"][2] == 0, found
    for depth, paired_mfma, unpaired_mfma in ((64, 4, 8), (80, 6, 10), (4096, 256, 512)):
        steps = depth // 16
        assert found["paired"][1] * -(-steps // 2) == paired_mfma
        assert found["unpaired"][1] * steps == unpaired_mfma


@pytest.mark.toolchain("clang")
def test_paired_k_steps_halve_the_reported_mfma_count_of_one_tile(tmp_path: Path) -> None:
    """The same 16x16 tile over K 32 (the golden port's loop bound fixed to 32, so the loop folds):
    the report's v_mfma count is 2 paired against 4 unpaired."""
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit

    golden = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
    paired = (golden / "wmma_gemm.cu").read_text().replace("kk < k", "kk < 32").replace("(kk + TILE) < k", "(kk + TILE) < 32")
    unpaired = PAIRED_HUNK.sub(UNPAIRED_STEP, paired).replace("kk += 2 * TILE", "kk += TILE")
    counts = {}
    for name, text in (("paired", paired), ("unpaired", unpaired)):
        src = tmp_path / name / "wmma_gemm.cu"
        src.parent.mkdir()
        src.write_text(text)
        (src.parent / "porter_compat.h").write_text((golden / "porter_compat.h").read_text())
        build, kernels = compile_unit(src, ClangHipOptions(arch="gfx950", include_dirs=(src.parent,)), tmp_path / name / "b")
        assert build.ok, build.stderr[-2000:]
        (kernel,) = [k for k in kernels if "wmma_gemm" in k.kernel]
        assert kernel.vgpr_spill == 0
        counts[name] = kernel.mfma_count
    assert counts == {"paired": 2, "unpaired": 4}
