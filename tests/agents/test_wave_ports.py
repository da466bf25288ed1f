"""The wave_* fixture projects ported end to end: every unit compiles for gfx950, no fixable WAVE finding stays open.

Each fixture (fixtures/wave_*/) is a small CUDA program written for 32-lane warps that checks itself
against a CPU reference; after `porter port` it must build for a 64-lane target with nothing left
that a WAVE rule knows how to fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WAVE_PROJECTS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("wave_"))


def test_there_are_wave_projects() -> None:
    assert len(WAVE_PROJECTS) >= 3


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize("name", WAVE_PROJECTS)
def test_wave_project_compiles_with_no_fixable_wave_finding_open(name: str, tmp_path: Path) -> None:
    state = port(FIXTURES / name, tmp_path / name, PortOptions())
    verdicts = {u.unit: u.verdict for u in state.units.values()}
    assert verdicts and set(verdicts.values()) == {"compiled"}, verdicts
    open_fixable = [f"{f.rule} {f.location}: {f.message}" for f in state.findings
                    if f.rule.startswith("WAVE") and f.fixable and not f.fixed]
    assert not open_fixable
    report = (tmp_path / name / "porter-report.md").read_text()
    assert "| compiled |" in report
    assert "0xffffffff," not in "".join(p.read_text() for p in (tmp_path / name).glob("*.cu"))
