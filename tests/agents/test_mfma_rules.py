"""MFMA001-MFMA004 and SHIM020 beyond their golden examples: the rocWMMA option (golden text only,
rocWMMA is not installable here), what is left alone, and the ISA the ported fixtures compile to."""

from __future__ import annotations

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
