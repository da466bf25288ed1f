"""`porter port` on a mixed tree: CUDA C++ and Triton ported together, each verified its own way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porter.run import port
from porter.state import FileKind, PortOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.toolchain("clang")
def test_mixed_cuda_and_triton_tree(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "reduce", src / "cuda")
    shutil.copytree(FIXTURES / "triton_vector_add", src / "triton")
    # One porter.toml at the root: the two projects' specs, their paths moved under cuda/ and triton/.
    spec = ((FIXTURES / "reduce" / "porter.toml").read_text().replace('unit = "', 'unit = "cuda/')
            + "\n" + (FIXTURES / "triton_vector_add" / "porter.toml").read_text().replace('module = "', 'module = "triton/'))
    (src / "porter.toml").write_text(spec)
    (src / "cuda" / "porter.toml").unlink()
    (src / "triton" / "porter.toml").unlink()

    out = tmp_path / "out"
    state = port(src, out, PortOptions())
    kinds = {f.path: f.kind for f in state.files}
    assert kinds["cuda/reduce.cu"] == FileKind.cuda and kinds["triton/vector_add.py"] == FileKind.triton
    cuda, triton = state.units["cuda/reduce.cu"], state.units["triton/vector_add.py"]
    assert cuda.verdict == "compiled" and cuda.kernels and cuda.kernels[0].arch == "gfx950"
    assert triton.verdict == "compiled", triton.reason
    assert [k.arch for k in triton.kernels] == ["gfx950"] and triton.kernels[0].vgprs > 0
    assert [(c.executor, c.status) for c in triton.checks] == [("triton-interpreter", "pass")]
    assert len(triton.controls) == 1 and "sm_90" in triton.controls[0]  # the NVIDIA control of the original
    assert any(p.path == "triton/vector_add.py" for p in state.patches)  # the TRI rules ported it
    report = (out / "porter-report.md").read_text()
    assert "`triton/vector_add.py`" in report and "triton-interpreter" in report and "## NVIDIA control" in report
