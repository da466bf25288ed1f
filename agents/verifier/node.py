"""verifier: compile every ported translation unit for the target, and the original with nvcc.

Runs after the shim agent. Each unit (a .cu/.cpp/... file and what it includes) is compiled
for gfx950 with clang in HIP mode against porter's ROCm 6.3 header overlay, and the original
with nvcc (compile only). Per kernel it records what the compiler reports: VGPRs, AGPRs, SGPRs,
LDS bytes, scratch, spills, occupancy and v_mfma count. A failed unit is classified by its
first error and routed back to the agent owning that class, until every unit compiles or the
iteration budget is spent. A missing toolchain is not an error of the port: the unit is
"not-checked", with the reason in the report.

A model patch is judged like any other, and more: one that leaves its unit no better than the
verifier found it last round (failing where it compiled, more errors, more mismatching kernels)
is reverted, and the unit keeps last round's evidence. When the model's budget is spent the
loop ends there, with a note, instead of going round without anyone to ask.
"""

from __future__ import annotations

from pathlib import Path

from porter.agents.verifier.units import check_units
from porter.llm.budget import Budget, Usage
from porter.state import Attempt, FileKind, PortState, UnitResult
from porter.verify.failures import route_of
from porter.workspace import Workspace

AGENT = "verifier"
UNIT_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
AGENT_ORDER = ("translator", "microarch", "shim")  # re-entry point: the earliest agent any unit needs


def units_of(state: PortState) -> list[str]:
    """Translation units (.cu/.cpp/...) and Triton modules (a .py file that imports triton)."""
    return [f.path for f in state.files
            if (f.kind in (FileKind.cuda, FileKind.cpp) and f.path.endswith(UNIT_SUFFIXES))
            or (f.kind == FileKind.triton and f.parsed)]


def verifier(state: PortState, ws: Workspace) -> dict:
    todo = state.pending if state.iteration else units_of(state)
    if not state.options.verify:
        results = {u: UnitResult(unit=u, verdict="not-checked", reason="verification off (--no-verify)") for u in todo}
    else:
        progress = _progress_writer()
        results = check_units(state, ws, todo, lambda done, total, unit: progress(
            {"node": AGENT, "done": done, "total": total, "item": unit}))
    attempts: list[Attempt] = []
    if state.options.executor != "none" and (ws.root / "porter.toml").is_file():
        results, attempts = check_numerics(state, ws, results)
    elif state.options.executor != "none":
        results, attempts = check_project(state, ws, results)
    results, reverts = revert_model_regressions(state, ws, results, {a.unit for a in attempts if a.reverted})
    attempts += reverts
    failed = sorted(u for u, r in results.items() if r.verdict == "failed")
    budget_left = state.iteration + 1 < state.options.max_iterations
    model_spent = Budget.of(state.options.model).spent(Usage.of(state.model_calls))
    if failed and budget_left and model_spent and not any(a.reverted == "rule" for a in attempts):
        return {"units": results, "pending": failed, "route": "report", "attempts": attempts,
                "notes": [f"model budget spent ({model_spent}): the loop ends with {len(failed)} unit(s) failing: "
                          f"{', '.join(failed)}"]}
    if failed and budget_left:
        wanted = {route_of(results[u].failure_class) for u in failed}
        route = next(a for a in AGENT_ORDER if a in wanted)
        return {"units": results, "pending": failed, "route": route, "iteration": state.iteration + 1,
                "attempts": attempts}
    notes = [f"iteration budget ({state.options.max_iterations}) spent with {len(failed)} unit(s) failing: "
             f"{', '.join(failed)}"] if failed else []
    return {"units": results, "pending": failed, "route": "report", "notes": notes, "attempts": attempts}


def check_numerics(state: PortState, ws: Workspace, results: dict[str, UnitResult]
                   ) -> tuple[dict[str, UnitResult], list[Attempt]]:
    """Run the kernel specs of the compiled units on the executor; a mismatch fails the unit.

    The first answer to a mismatch is to revert the unit's last microarch patch (DESIGN.md):
    the rewrite is the likeliest culprit, and the next round re-verifies without it. A unit
    with no microarch patch left to revert is recorded for the model or a person. On rocm the
    port's time is also set against its direct-hipify baseline; slower fails the unit too.
    """
    from porter.verify.evidence import check_from_verdict
    from porter.verify.executors import get_executor
    from porter.verify.project import verify_project
    from porter.verify.spec import load_spec

    spec = load_spec(ws.root)
    compiled = {u for u, r in results.items() if r.verdict == "compiled"}
    spec = spec.model_copy(update={"kernels": tuple(k for k in spec.kernels if k.unit in compiled)})
    if not spec.kernels:
        return results, []
    executor = get_executor(state.options.executor)
    verdicts = verify_project(ws.root, spec, executor, Path(state.source))
    baseline: dict[tuple[str, str], object] = {}
    if state.options.executor == "rocm":  # the only executor whose timings speak for the target
        tree = ws.snapshot(ws.state_dir / "baseline", agents={"translator"})
        baseline = {(v.unit, v.kernel): v for v in verify_project(tree, spec, executor, Path(state.source),
                                                                    workdir=ws.state_dir / "verify" / "baseline")}
    updated, attempts = dict(results), []
    for unit in sorted({v.unit for v in verdicts}):
        checks = tuple(check_from_verdict(v, baseline.get((v.unit, v.kernel))) for v in verdicts if v.unit == unit)
        # A check that could not run (no GPU, a task lost twice) is no evidence either way: not a failure.
        bad = [c for c in checks if c.status not in ("pass", "not-checked") or c.timing == "slower"]
        result = updated[unit].model_copy(update={"checks": checks})
        if bad:
            cls = "slower" if all(c.status == "pass" for c in bad) else "mismatch"
            reverted = ws.revert_last(unit, "microarch") if cls == "mismatch" else None
            what = f"reverted microarch patch ({reverted.rule}) and re-verifying" if reverted else \
                "no microarch patch left to revert: needs the model or a person"
            attempts.append(Attempt(iteration=state.iteration + 1, unit=unit, failure_class=cls, routed_to="microarch",
                                    message=f"{bad[0].kernel}: {bad[0].reason or bad[0].timing}; {what}",
                                    reverted=reverted.origin if reverted else ""))
            result = result.model_copy(update={"verdict": "failed", "failure_class": cls,
                                               "reason": f"{bad[0].kernel}: {bad[0].reason or 'slower than baseline'}"})
        updated[unit] = result
    return updated, attempts


def check_project(state: PortState, ws: Workspace, results: dict[str, UnitResult]
                  ) -> tuple[dict[str, UnitResult], list[Attempt]]:
    """No spec: run the project's own checks (porter.verify.discover) on the original and the port,
    each through its own build files, and fail the compiled units a failing check covers.

    A port whose own build files do not build goes back to the translator (it ports build files);
    a check whose output differs is a numerical mismatch, answered as a spec mismatch is: revert
    the unit's last microarch patch first.
    """
    from porter.state import KernelCheck
    from porter.verify.checks import CHECK_FAILED, verify_checks
    from porter.verify.discover import discover_checks

    discovery = discover_checks(Path(state.source))
    compiled = sorted(u for u, r in results.items() if r.verdict == "compiled")
    wanted = [c for c in discovery.checks if any(c.covers(u) for u in compiled)]
    if not wanted:
        return results, []
    verdicts = verify_checks(wanted, Path(state.source), ws.root, state.options.executor,
                             ws.state_dir / "verify" / "checks")
    updated, attempts = dict(results), []
    for unit in compiled:
        covering = [v for v in verdicts if v.check.covers(unit)]
        if not covering:
            continue
        checks = tuple(KernelCheck(kernel=f"check {v.check.name}", executor=v.executor, status=v.status,
                                   reason=v.reason) for v in covering)
        result = updated[unit].model_copy(update={"checks": updated[unit].checks + checks})
        bad = [v for v in covering if v.status in CHECK_FAILED]
        if bad:
            first = bad[0]
            cls = "build-files" if first.status == "port-build-failed" else "mismatch"
            reverted = ws.revert_last(unit, "microarch") if cls == "mismatch" else None
            what = f"reverted microarch patch ({reverted.rule}) and re-verifying" if reverted else \
                "the port's build files need the translator" if cls == "build-files" else \
                "no microarch patch left to revert: needs the model or a person"
            attempts.append(Attempt(iteration=state.iteration + 1, unit=unit, failure_class=cls,
                                    routed_to=route_of(cls), reverted=reverted.origin if reverted else "",
                                    message=f"check {first.check.name} ({first.check.origin}): {first.reason}; {what}"))
            result = result.model_copy(update={"verdict": "failed", "failure_class": cls,
                                               "reason": f"check {first.check.name}: {first.reason}"})
        updated[unit] = result
    return updated, attempts


def revert_model_regressions(state: PortState, ws: Workspace, results: dict[str, UnitResult], skip: set[str]
                             ) -> tuple[dict[str, UnitResult], list[Attempt]]:
    """Undo this round's model patches that left their unit no better than last round.

    The tree of a reverted unit is then what last round verified, so its evidence stands.
    Units in `skip` already had a patch reverted this round (the numerics check's first answer).
    """
    updated, attempts, skip = dict(results), [], set(skip)
    for call in state.model_calls:
        unit = call.unit
        before, after = state.units.get(unit), results.get(unit)
        if (call.iteration != state.iteration or call.outcome != "patched" or unit in skip or before is None
                or after is None or _standing(after) > _standing(before) or after.verdict == "not-checked"):
            continue
        for path in call.paths:
            ws.revert_last(path, call.agent)
        skip.add(unit)
        updated[unit] = before
        attempts.append(Attempt(iteration=state.iteration + 1, unit=unit, failure_class=after.failure_class or "none",
                                routed_to=route_of(before.failure_class), reverted="model",
                                message=f"model patch by {call.agent} left the unit no better "
                                        f"({after.reason or after.verdict}): reverted"))
    return updated, attempts


def _standing(result: UnitResult) -> tuple[int, int]:
    """How far a unit got, comparable: compiled > runs but wrong or slow > fails to compile;
    then fewer bad kernels, or fewer compiler errors."""
    if result.verdict == "compiled":
        return (3, 0)
    if result.failure_class in ("mismatch", "slower"):
        return (2, -sum(c.status != "pass" or c.timing == "slower" for c in result.checks))
    errors = result.port_build.stderr.count(" error: ") if result.port_build else 1
    return (1, -errors)


def _progress_writer():
    """LangGraph's custom stream for progress events; a no-op outside a graph run."""
    from langgraph.config import get_stream_writer

    try:
        return get_stream_writer()
    except RuntimeError:  # called outside a runnable context (tests call the node directly)
        return lambda event: None


def verify_unit(state: PortState, ws: Workspace, unit: str) -> UnitResult:
    """One unit's evidence as the output tree stands (a session's /verify), through the run's dispatcher."""
    return check_units(state, ws, [unit], lambda done, total, item: None)[unit]
