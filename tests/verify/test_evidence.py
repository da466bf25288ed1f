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


# ------------------------------------------------------------------ no spec: the project's own checks

KERNEL = "__global__ void half(float *x) { x[threadIdx.x] *= 0.5f; }\n"
HOST = '#include <stdio.h>\nint main(void) { printf("sum = %.3f\\n", 1008.0); printf("Test passed\\n"); return 0; }\n'
MAKEFILE = "prog: prog.c\n\tcc -o prog prog.c\n\nrun: prog\n\t./prog\n"


@pytest.fixture()
def host_envs(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GPU here: both sides build with the plain environment (their Makefiles call cc)."""
    import os

    from porter.verify import checks

    monkeypatch.setattr(checks, "executor_envs", lambda executor, workdir, base=None: (dict(os.environ),) * 2)


def ported(tmp_path: Path, makefile: str | None = MAKEFILE) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "half.cu").write_text(KERNEL)
    (src / "prog.c").write_text(HOST)
    if makefile:
        (src / "Makefile").write_text(makefile)
    out = tmp_path / "out"
    port(src, out, PortOptions(verify=False))
    return out


def test_no_spec_runs_the_projects_own_check_and_passes(tmp_path: Path, host_envs: None) -> None:
    out = ported(tmp_path)
    result = CliRunner().invoke(app, ["verify", str(out)], terminal_width=200)
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads((out / "porter-verify.json").read_text())
    assert data["passed"] and data["units"] == [{"unit": "half.cu", "status": "passed", "by": ["check .:make run"],
                                                 "reason": "check .:make run"}]
    (check,) = data["checks"]
    assert (check["status"], check["origin"], check["compared"]) == ("pass", "Makefile:4", 1)
    md = (out / "porter-verify.md").read_text()
    assert "every unit had a check that ran and passed" in md and "| `.:make run` | `Makefile:4` |" in md


def test_no_spec_port_that_prints_other_numbers_fails(tmp_path: Path, host_envs: None) -> None:
    out = ported(tmp_path)
    (out / "prog.c").write_text(HOST.replace("1008.0", "496.0"))
    result = CliRunner().invoke(app, ["verify", str(out)], terminal_width=200)
    assert result.exit_code == 1
    data = json.loads((out / "porter-verify.json").read_text())
    assert data["units"][0]["status"] == "failed"
    assert (data["checks"][0]["original_line"], data["checks"][0]["port_line"]) == ("sum = 1008.000", "sum = 496.000")
    assert "original: sum = 1008.000\nport:     sum = 496.000" in (out / "porter-verify.md").read_text()


def test_no_check_found_is_exit_1_with_the_reason(tmp_path: Path, host_envs: None) -> None:
    out = ported(tmp_path, makefile=None)
    result = CliRunner().invoke(app, ["verify", str(out)], terminal_width=200)
    assert result.exit_code == 1
    assert "half.cu: not-verified: no check of the project builds or runs it" in " ".join(result.stderr.split())


def test_gfx950_build_only_is_compiled_only_and_exit_1(tmp_path: Path, host_envs: None) -> None:
    out = ported(tmp_path)
    result = CliRunner().invoke(app, ["verify", str(out), "--executor", "gfx950"], terminal_width=200)
    assert result.exit_code == 1
    data = json.loads((out / "porter-verify.json").read_text())
    assert data["units"][0]["status"] == "compiled-only" and data["checks"][0]["status"] == "compiled-only"


def test_a_port_with_no_kernel_has_nothing_exercised(tmp_path: Path) -> None:
    ev = evidence.Evidence(executor="hip-on-cuda", source="s", output="o", kernels=())
    assert not ev.passed and ev.failures == ["no unit with a kernel to verify: nothing was exercised"]


def test_kernels_not_exercised_do_not_pass() -> None:
    v = KernelVerdict(kernel="k", unit="a.cu", status="not-exercised", reason="no [[verify.kernel]] spec names this kernel")
    (u,) = evidence.unit_evidence(["a.cu"], [evidence.KernelEvidence(kernel="k", unit="a.cu", port=v)], [])
    assert (u.status, u.reason) == ("not-verified", "kernel k: not-exercised: no [[verify.kernel]] spec names this kernel")
