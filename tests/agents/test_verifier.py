"""The verifier: error classes, routing back to the owning agent, and the iteration budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions
from porter.verify.failures import first_error, route_of, toolchain_gap


@pytest.mark.parametrize(("stderr", "cls", "agent"), [
    ("a.cu:3:5: error: use of undeclared identifier 'cudaFooBar'", "cuda-name-left", "translator"),
    ("a.cu:3:5: error: use of undeclared identifier '__nanosleep'", "missing-declaration", "shim"),
    ("a.cu:1:10: fatal error: 'cudnn.h' file not found", "header-not-found", "translator"),
    ("x.h:9:3: error: static assertion failed due to requirement 'sizeof(unsigned int) == 8': "
     "The mask must be a 64-bit integer. Implicitly promoting a smaller integer is almost always an error.",
     "sync-mask-width", "microarch"),
    ("a.cu:4:1: error: expected ';' after expression", "other", "translator"),
])
def test_first_error_is_classified_and_routed(stderr: str, cls: str, agent: str) -> None:
    error = first_error("a.cu:1:1: warning: unused\n" + stderr + "\n1 error generated.\n")
    assert error is not None and error.failure_class == cls and route_of(cls) == agent
    assert first_error("a.cu:1:1: warning: only a warning\n") is None


@pytest.mark.parametrize("stderr, gap", [
    ("a.cu:2:10: fatal error: 'hipblaslt/hipblaslt.h' file not found", "ROCm library"),
    ("a.cu:2:10: fatal error: 'hipcub/hipcub.hpp' file not found", "ROCm library"),
    ("a.cu:2:10: fatal error: 'omp.h' file not found", "libomp-22-dev"),
    ("a.cu:2:10: fatal error: 'reduce.cuh' file not found", ""),  # the project's own header: the port's fault
    ("a.cu:3:5: error: use of undeclared identifier 'cudaMalloc'", ""),
])
def test_toolchain_gaps_are_not_port_failures(stderr: str, gap: str) -> None:
    reason = toolchain_gap(first_error(stderr))
    assert (gap in reason and reason.startswith("not checked: ")) if gap else reason == ""


@pytest.mark.toolchain("clang")
def test_failing_unit_is_routed_until_the_budget_is_spent(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(int* p) { cudaFooBar(p); }\n")
    state = port(src, tmp_path / "out", PortOptions(max_iterations=2))
    unit = state.units["k.cu"]
    assert unit.verdict == "failed" and unit.failure_class == "cuda-name-left"
    assert "cudaFooBar" in unit.reason
    assert [(a.iteration, a.routed_to) for a in state.attempts] == [(1, "translator")]
    assert any("budget (2) spent" in n for n in state.notes)
    assert any(f.rule == "HIP005" and f.location.line == 2 for f in state.findings)


@pytest.mark.toolchain("clang")
def test_progress_reports_each_node_and_each_compiled_unit(tmp_path: Path) -> None:
    events = []
    port(Path(__file__).resolve().parents[2] / "fixtures" / "blas_rand", tmp_path / "out", PortOptions(),
         on_progress=events.append)
    nodes = [e.node for e in events if e.total == 1]
    assert nodes[:5] == ["scan", "translator", "microarch", "shim", "verifier"] and nodes[-1] == "report"
    units = [(e.done, e.total, e.item) for e in events if e.node == "verifier" and e.item]
    assert [(d, t) for d, t, _ in units] == [(1, 2), (2, 2)]
    assert sorted(item for _, _, item in units) == ["kernels.cu", "main.cpp"]


def test_missing_toolchain_leaves_units_not_checked_with_the_reason(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTER_CLANG", str(tmp_path / "no-such-clang"))
    out = tmp_path / "out"
    state = port(Path(__file__).resolve().parents[2] / "fixtures" / "reduce", out, PortOptions())
    unit = state.units["reduce.cu"]
    assert unit.verdict == "not-checked" and "PORTER_CLANG" in unit.reason
    report = (out / "porter-report.md").read_text()
    assert "Not verified" in report and "no-such-clang" in report
