"""The verifier's numerics loop: a mismatch reverts the unit's last microarch patch and re-verifies.

The executor is replaced by a scripted one (no GPU here): the first verification of the unit
reports a mismatch, the next a pass. The graph must revert the microarch patch, go round once
more, and record both attempts; the unit ends compiled with its checks in the report.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions
from porter.verify import project
from porter.verify.project import KernelVerdict

LANES = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "lanes"  # kernel + porter.toml


@pytest.mark.toolchain("clang")
def test_mismatch_reverts_the_microarch_patch_then_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    shutil.copytree(LANES, src)
    outcomes = iter(["mismatch", "pass"])
    seen_units: list[str] = []

    def scripted(output_dir, spec, executor, baseline_dir, **kw):
        status = next(outcomes)
        seen_units.extend(k.unit for k in spec.kernels)
        return [KernelVerdict(kernel=k.name, unit=k.unit, status=status, executor=executor.name,
                              reason="out: 3 of 256 elements outside tolerance" if status == "mismatch" else "")
                for k in spec.kernels]

    monkeypatch.setattr(project, "verify_project", scripted)
    out = tmp_path / "out"
    state = port(src, out, PortOptions(executor="hip-on-cuda"))
    unit = state.units["lanes.cu"]
    assert unit.verdict == "compiled" and [c.status for c in unit.checks] == ["pass"]
    assert seen_units == ["lanes.cu", "lanes.cu"]
    reverts = [a for a in state.attempts if a.failure_class == "mismatch" and "reverted microarch patch" in a.message]
    assert len(reverts) == 1 and reverts[0].iteration == 1
    # the revert landed: the port is the translator's again
    assert "threadIdx.x % 32" in (out / "lanes.cu").read_text()
    assert "## Numerics and timing" in (out / "porter-report.md").read_text()
