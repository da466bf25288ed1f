"""build_report: the counts, the per-file and per-rule tables, and the exit status."""

from __future__ import annotations

import pytest

from porter.report import REPORT_FILES, Report, build_report, write_reports
from porter.report.model import COMPILED_ONLY
from porter.state import BuildResult, Finding, Location, PortState, Severity, UnitResult


def test_summary_counts(port_state, build_kwargs):
    s = build_report(port_state, **build_kwargs).summary
    assert s.files == 8
    assert s.files_by_kind == {"cuda": 5, "cmake": 1, "text": 1, "binary": 1}
    assert (s.files_changed, s.files_created) == (3, 1)
    assert s.kernels == 5
    assert (s.units_compiled, s.units_failed, s.units_not_checked) == (2, 1, 1)
    assert s.hazards == {"error": 3, "warning": 3, "info": 4}
    assert (s.open_hazards, s.open_errors, s.open_warnings) == (4, 2, 2)


def test_changes_group_patches_by_file(port_state, build_kwargs):
    changes = {c.path: c for c in build_report(port_state, **build_kwargs).changes}
    assert list(changes) == sorted(changes)
    reduce = changes["kernels/reduce.cu"]
    assert (reduce.rules, reduce.edits, reduce.created) == (["HIP001", "WAVE001"], 3, False)
    assert [s.agent for s in reduce.steps] == ["translator", "microarch"]
    header = changes["include/porter_compat.h"]
    assert header.created and header.rules == [] and header.steps[0].reason == "compat header for warp intrinsics"


def test_copied_files_carry_their_note(port_state, build_kwargs):
    copied = {c.path: c.note for c in build_report(port_state, **build_kwargs).copied}
    assert copied == {"data/table.bin": "binary: has NUL bytes",
                      "include/legacy.h": "not UTF-8 (byte 0xe9 at 120): copied unchanged",
                      "kernels/macro.cuh": "not parsed"}


def test_rule_counts_and_reasons(port_state, build_kwargs):
    rules = {r.rule: r for r in build_report(port_state, **build_kwargs).rules}
    assert (rules["HIP001"].found, rules["HIP001"].fixed, rules["HIP001"].left) == (3, 3, 0)
    assert rules["HIP001"].reason == ""
    assert (rules["WAVE002"].left, rules["WAVE002"].reason) == (1, "no fixer")
    assert (rules["LDS001"].left, rules["LDS001"].reason) == (1, "fix not applied")
    assert rules["WAVE001"].why.startswith("CDNA wavefronts have 64 lanes")
    assert rules["WAVE001"].title == "warp size hard-coded as 32."
    unknown = rules["SHIM009"]
    assert unknown.title == "not in this porter's rule catalog" and unknown.severity is Severity.warning


def test_mixed_left_reason(build_kwargs):
    loc = Location(path="a.cu", line=1)
    findings = [Finding(rule="LDS001", severity="warning", message="m", location=loc.model_copy(update={"line": n}),
                        fixable=n == 1) for n in (1, 2, 3)]
    state = PortState(run_id="r", source="/s", output="/o", findings=findings)
    (count,) = build_report(state, **build_kwargs).rules
    assert count.reason == "no fixer (2), fix not applied (1)"


def test_units_kernels_and_not_verified(port_state, build_kwargs):
    report = build_report(port_state, **build_kwargs)
    assert [u.unit for u in report.units] == sorted(port_state.units)
    bad = next(u for u in report.units if u.unit == "kernels/bad.cu")
    assert bad.error == "kernels/bad.cu:7:3: error: invalid instruction"
    assert [(k.unit, k.kernel) for k in report.kernels] == [
        ("kernels/gemm.cu", "sgemm_mfma"), ("kernels/gemm.cu", "sgemm_tiled"), ("kernels/reduce.cu", "reduce_sum")]
    assert [(n.unit, n.level, n.reason) for n in report.not_verified] == [
        ("ext/fused.cu", "not-checked", "needs torch/extension.h: torch is not installed"),
        ("kernels/gemm.cu", "compiled-only", COMPILED_ONLY), ("kernels/reduce.cu", "compiled-only", COMPILED_ONLY)]
    assert report.numerics == []
    assert report.notes == port_state.notes
    assert [a.iteration for a in report.attempts] == [1, 2]


def test_findings_sorted_by_place(port_state, build_kwargs):
    report = build_report(port_state, **build_kwargs)
    keys = [(f.location.path, f.location.line, f.location.column) for f in report.findings]
    assert keys == sorted(keys)


def _unit(name: str, verdict: str) -> UnitResult:
    build = BuildResult(toolchain="clang-hip", cmd=("clang++-22",), rc=0 if verdict == "compiled" else 1)
    return UnitResult(unit=name, verdict=verdict, port_build=None if verdict == "not-checked" else build)


def _finding(severity: str, fixed: bool) -> Finding:
    return Finding(rule="WAVE001", severity=severity, message="m", location=Location(path="a.cu", line=1),
                   fixable=True, fixed=fixed)


@pytest.mark.parametrize(("verdicts", "findings", "code"), [
    ([], [], 0),
    (["compiled", "compiled"], [_finding("error", True), _finding("info", False)], 0),
    (["compiled", "failed"], [], 1),
    (["compiled", "not-checked"], [], 1),
    (["compiled"], [_finding("warning", False)], 1),
    ([], [_finding("error", False)], 1),
], ids=["nothing", "all-compiled-fixed", "one-failed", "one-not-checked", "open-warning", "open-error"])
def test_exit_code(verdicts, findings, code, build_kwargs):
    units = {f"u{i}.cu": _unit(f"u{i}.cu", v) for i, v in enumerate(verdicts)}
    state = PortState(run_id="r", source="/s", output="/o", units=units, findings=findings)
    report = build_report(state, **build_kwargs)
    assert report.exit_code == code
    assert bool(report.blocking) == bool(code)


def test_exit_code_of_the_full_run(port_state, build_kwargs):
    report = build_report(port_state, **build_kwargs)
    assert report.exit_code == 1
    assert report.blocking == ["1 unit failed to compile", "1 unit not checked", "2 open errors", "2 open warnings"]


def test_write_reports(port_state, build_kwargs, tmp_path):
    report = write_reports(port_state, tmp_path / "out", **build_kwargs)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(REPORT_FILES.values())
    text = (tmp_path / "out" / REPORT_FILES["json"]).read_text(encoding="utf-8")
    assert Report.model_validate_json(text) == report


def test_write_reports_rejects_unknown_keywords(port_state, build_kwargs, tmp_path):
    with pytest.raises(TypeError):
        write_reports(port_state, tmp_path, colour=True, **build_kwargs)


def test_a_unit_whose_check_passed_is_numerics_run(port_state, build_kwargs):
    from porter.state import KernelCheck

    units = dict(port_state.units)
    units["kernels/gemm.cu"] = units["kernels/gemm.cu"].model_copy(update={"checks": (
        KernelCheck(kernel="check .:make run", executor="hip-on-cuda", status="pass"),)})
    report = build_report(port_state.model_copy(update={"units": units}), **build_kwargs)
    assert [(n.unit, n.executor, n.checks) for n in report.numerics] == [
        ("kernels/gemm.cu", "hip-on-cuda", ["check .:make run"])]
    assert "kernels/gemm.cu" not in {n.unit for n in report.not_verified}
