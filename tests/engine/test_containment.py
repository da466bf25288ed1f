"""porter's own failures are contained: a raising rule or node is a finding, the run goes on, exit 3."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter import rules
from porter.cli import app
from porter.containment import porter_frame
from porter.report import build_report
from porter.run import port
from porter.state import INTERNAL_ERROR, PortOptions

runner = CliRunner()

KERNEL = b"""#include <cuda_runtime.h>
__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }
int main() { float* d; cudaMalloc(&d, 64); scale<<<1, 32>>>(d, 16); cudaFree(d); return 0; }
"""


def _boom(unit, ctx):
    yield from ()
    raise ZeroDivisionError("injected by the test")


@pytest.fixture
def failing_hip002(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = rules.load()
    monkeypatch.setitem(catalog, "HIP002", replace(catalog["HIP002"], func=_boom))


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_bytes(KERNEL)
    (src / "b.cu").write_bytes(KERNEL.replace(b"scale", b"twice"))
    return src


def test_a_failing_rule_is_a_finding_and_the_other_rules_and_files_go_on(tmp_path: Path, failing_hip002) -> None:
    state = port(_tree(tmp_path), tmp_path / "out", PortOptions(verify=False))
    errors = [f for f in state.findings if f.rule == INTERNAL_ERROR]
    assert sorted(f.location.path for f in errors) == ["a.cu", "b.cu"]
    assert all("HIP002" in f.message and "ZeroDivisionError: injected by the test" in f.message for f in errors)
    assert all("porter.rules:" in f.detail for f in errors)  # the innermost frame of porter's code
    # HIP001 still ran on both files: the runtime calls are renamed in the output tree
    for name in ("a.cu", "b.cu"):
        text = (tmp_path / "out" / name).read_text()
        assert "hipMalloc" in text and "cudaMalloc" not in text
    report = build_report(state, header_set="test", engine="test", toolchains={})
    assert report.exit_code == 3
    assert [(i.unit, i.step) for i in report.incomplete] == [("a.cu", "HIP002"), ("b.cu", "HIP002")]
    assert report.blocking[0] == "2 units porter failed on"


def test_cli_exits_3_and_says_so_in_console_and_every_report(tmp_path: Path, failing_hip002) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["port", str(_tree(tmp_path)), "-o", str(out), "--no-verify"], terminal_width=200)
    assert result.exit_code == 3, result.output
    assert "porter failed" in result.stdout and "Porter failed" in result.stdout
    md = (out / "porter-report.md").read_text()
    assert "## Porter failed" in md and "porter failed (exit 3)" in md
    data = json.loads((out / "porter-report.json").read_text())
    assert [i["unit"] for i in data["incomplete"]] == ["a.cu", "b.cu"]
    sarif = json.loads((out / "porter-report.sarif").read_text())["runs"][0]
    assert sarif["invocations"][0]["executionSuccessful"] is False
    assert len(sarif["invocations"][0]["toolExecutionNotifications"]) == 2
    assert all(r["ruleId"] != INTERNAL_ERROR for r in sarif["results"])


def test_a_failing_node_is_contained_to_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.agents.shim import node as shim

    def broken(*args, **kwargs):
        raise KeyError("shim table")

    monkeypatch.setattr(shim, "shim", broken)
    state = port(_tree(tmp_path), tmp_path / "out", PortOptions(verify=False))
    report = build_report(state, header_set="test", engine="test", toolchains={})
    assert [(i.unit, i.step) for i in report.incomplete] == [("", "shim node")]
    assert report.exit_code == 3
    assert "hipMalloc" in (tmp_path / "out" / "a.cu").read_text()  # the translator's work landed
    assert (tmp_path / "out" / "porter-report.md").exists()  # the report node still ran


def test_porter_frame_names_the_innermost_porter_frame() -> None:
    from porter import syntax

    with pytest.raises(Exception) as info:
        syntax.query("cuda", "(no_such_node) @x")
    assert porter_frame(info.value).startswith("porter.syntax:")
