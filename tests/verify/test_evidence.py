"""`porter verify OUT`: port and direct-hipify baseline against the original, evidence files written.

No GPU here: `verify_project` is scripted to answer as the H200 does for a wave32 bug that only
the microarch agent fixes (baseline mismatch, port pass).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.run import port
from porter.state import PortOptions
from porter.verify import evidence
from porter.verify.project import KernelVerdict

LANES = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "lanes"  # kernel + porter.toml


def test_verify_compares_port_and_hipify_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    shutil.copytree(LANES, src)
    out = tmp_path / "out"
    port(src, out, PortOptions(verify=False))
    trees: list[Path] = []

    def scripted(output_dir, spec, executor, baseline_dir, **kw):
        trees.append(Path(output_dir))
        baseline = Path(output_dir).name == "baseline"
        assert Path(baseline_dir) == src
        return [KernelVerdict(kernel="laneOf", unit="lanes.cu", executor=executor.name,
                              status="mismatch" if baseline else "pass",
                              reason="out: 32 of 64 elements differ" if baseline else "")]

    monkeypatch.setattr(evidence, "verify_project", scripted)
    result = CliRunner().invoke(app, ["verify", str(out), "--executor", "hip-on-cuda"], terminal_width=200)
    assert result.exit_code == 0, result.stdout
    assert trees == [out, out / ".porter" / "baseline"]
    # the baseline tree is the translator-only port: renamed, not yet rewritten for wave64
    assert "threadIdx.x % 32" in (out / ".porter" / "baseline" / "lanes.cu").read_text()
    assert "threadIdx.x % warpSize" in (out / "lanes.cu").read_text()
    data = json.loads((out / "porter-verify.json").read_text())
    (row,) = data["kernels"]
    assert (row["port"]["status"], row["baseline"]["status"]) == ("pass", "mismatch")
    assert "| `lanes.cu` | `laneOf` | pass |" in (out / "porter-verify.md").read_text()


def test_verify_refuses_a_tree_porter_did_not_write(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["verify", str(tmp_path)])
    assert result.exit_code == 2 and "porter output tree" in " ".join(result.stderr.split())
