"""The verifier loop on the project's own checks (no porter.toml): a failing check fails the units it
covers and routes them as a spec failure would (mismatch -> microarch first, a port whose own
build files do not build -> translator). verify_checks is scripted: no GPU here."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.agents.verifier import node
from porter.run import port
from porter.state import PortOptions, UnitResult
from porter.verify import checks as checks_mod
from porter.verify.checks import CheckVerdict
from porter.workspace import Workspace

MAKEFILE = "lanes: lanes.cu\n\tnvcc -o lanes lanes.cu\n"
SOURCE = ('#include <cstdio>\n__global__ void lane_of(int *o) { o[threadIdx.x] = threadIdx.x % 32; }\n'
          'int main() { printf("Test passed\\n"); return 0; }\n')


@pytest.fixture()
def ported(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "Makefile").write_text(MAKEFILE)
    (src / "lanes.cu").write_text(SOURCE)
    state = port(src, tmp_path / "out", PortOptions(verify=False))
    state = state.model_copy(update={"options": state.options.model_copy(update={"executor": "hip-on-cuda"})})
    return state, Workspace(tmp_path / "out")


@pytest.mark.parametrize(("status", "cls", "agent"), [("mismatch", "mismatch", "microarch"),
                                                       ("port-build-failed", "build-files", "translator")])
def test_failing_check_fails_and_routes_the_unit(ported, monkeypatch: pytest.MonkeyPatch, status: str, cls: str,
                                                 agent: str) -> None:
    state, ws = ported
    seen = []

    def scripted(found, source, output, executor, workdir, **kw):
        seen.append((tuple(c.name for c in found), executor, Path(output) == ws.root))
        return [CheckVerdict(check=c, executor=executor, status=status, reason="value 1 differs: 64 against 32")
                for c in found]

    monkeypatch.setattr(checks_mod, "verify_checks", scripted)
    results = {"lanes.cu": UnitResult(unit="lanes.cu", verdict="compiled")}
    updated, attempts = node.check_project(state, ws, results)
    assert seen == [((".:lanes",), "hip-on-cuda", True)]
    unit = updated["lanes.cu"]
    assert (unit.verdict, unit.failure_class) == ("failed", cls)
    assert unit.checks[0].kernel == "check .:lanes" and unit.checks[0].status == status
    (attempt,) = attempts
    assert attempt.routed_to == agent and "Makefile:1" in attempt.message


def test_passing_check_records_the_numerics(ported, monkeypatch: pytest.MonkeyPatch) -> None:
    state, ws = ported
    monkeypatch.setattr(checks_mod, "verify_checks", lambda found, *a, **k: [
        CheckVerdict(check=c, executor="hip-on-cuda", status="pass", reason="PASS marker on both sides") for c in found])
    updated, attempts = node.check_project(state, ws, {"lanes.cu": UnitResult(unit="lanes.cu", verdict="compiled")})
    assert attempts == [] and updated["lanes.cu"].verdict == "compiled"
    assert [(c.kernel, c.status) for c in updated["lanes.cu"].checks] == [("check .:lanes", "pass")]
