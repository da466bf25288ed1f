"""The built wheel carries agents/, prompts/ and shims/ under `porter.` and works from a fresh venv."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*cmd: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_ports(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT)
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("porter_gpu-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "porter/agents/translator/node.py" in names
    assert "porter/shims/hip/hip/hip_runtime.h" in names
    assert "porter/shims/compat/cache_hint_memory.h" in names
    assert any(n.startswith("porter/prompts/") for n in names)
    assert not [n for n in names if n.split("/")[0] in ("agents", "prompts", "shims", "tests", "fixtures")]
    from porter import rules

    missing = [r.module for r in rules.load().values() if r.module.replace(".", "/") + ".py" not in names]
    assert not missing, f"rule modules left out of the wheel: {missing}"

    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", venv).returncode == 0
    installed = _run(venv / "bin" / "pip", "install", "-q", wheel)
    assert installed.returncode == 0, installed.stderr
    version = _run(venv / "bin" / "porter", "--version")
    assert version.returncode == 0 and version.stdout.startswith("porter 0."), version.stderr
    out = tmp_path / "out"
    ported = _run(venv / "bin" / "porter", "port", ROOT / "fixtures" / "reduce", "-o", out, "--no-verify", cwd=tmp_path)
    assert ported.returncode in (0, 1), ported.stderr
    assert "hipMalloc" in (out / "reduce.cu").read_text()
    assert (out / "porter-report.sarif").is_file()
    assert _run(venv / "bin" / "python", "-c", "import agents", cwd=tmp_path).returncode != 0
