"""`porter verify OUT`: numerical and timing evidence for a finished port.

For every kernel spec of the port (its porter.toml), runs three builds of the same seeded
driver: the original with the cuda executor (the reference), the port with the chosen
executor, and the port's translator-only baseline (the direct hipify, rebuilt from the
workspace ledger) with the same executor. The port must match the original; a wave32 bug
that only the microarch agent fixes shows as a baseline mismatch next to a passing port; and
"beats the baseline" is the port's time against that baseline's, measured on one executor.
With `--executor cuda` the original is run against itself (reference outputs and timings).

A port with no verify spec is checked by the project's own checks (porter.verify.discover):
each is built and run on the original and on the port through their own build files and the
outputs compared (porter.verify.checks); `--executor gfx950` only builds the port ("compiled
only"). Every unit (a file holding kernels) then gets one verdict: passed, failed, compiled
only, or not verified with the reason. `passed` (exit 0) needs every unit to have had a check
that ran and passed: nothing exercised is a failure, never a pass.
Writes OUT/porter-verify.json and OUT/porter-verify.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from porter.state import Frozen, KernelCheck
from porter.verify.checks import CHECK_EXECUTORS, CHECK_FAILED, CheckVerdict, verify_checks
from porter.verify.discover import DiscoveredCheck, Discovery, discover_checks
from porter.verify.executors import CudaExecutor, TimingVerdict, get_executor, verdict
from porter.verify.project import KernelVerdict, verify_project
from porter.verify.spec import load_spec
from porter.workspace import Workspace

RUN_FILE = "run.json"  # OUT/.porter/run.json: what `porter port` leaves for `porter verify`
JSON_FILE = "porter-verify.json"
MD_FILE = "porter-verify.md"


class KernelEvidence(Frozen):
    kernel: str
    unit: str
    port: KernelVerdict
    baseline: KernelVerdict | None = None  # the translator-only port; None with the cuda executor
    timing_vs_baseline: TimingVerdict | None = None  # the port against the direct hipify, same executor


UnitStatus = Literal["passed", "failed", "compiled-only", "not-verified"]
KERNEL_FAILED = ("mismatch", "port-build-failed", "port-run-failed")


class UnitEvidence(Frozen):
    """What vouches for one unit: the checks and kernel specs that exercised it, and the verdict."""

    unit: str
    status: UnitStatus
    by: tuple[str, ...] = ()  # names of the checks / kernels that decided it
    reason: str = ""


class Evidence(Frozen):
    executor: str
    source: str
    output: str
    kernels: tuple[KernelEvidence, ...]
    checks: tuple[CheckVerdict, ...] = ()  # the project's own checks, when it has no spec
    discovery: Discovery | None = None  # None: the spec's kernels were run instead
    units: tuple[UnitEvidence, ...] = ()

    @property
    def passed(self) -> bool:
        """Every unit had a check that ran and passed (and there was at least one unit)."""
        return bool(self.units) and all(u.status == "passed" for u in self.units)

    @property
    def failures(self) -> list[str]:
        """Why `passed` is False, one line per unit (or for the whole run)."""
        if not self.units:
            return ["no unit with a kernel to verify: nothing was exercised"]
        return [f"{u.unit}: {u.status}: {u.reason}" for u in self.units if u.status != "passed"]


def read_run(output: Path) -> dict:
    path = output / ".porter" / RUN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{output}: no {path.relative_to(output)}; is this a porter output tree?")
    return json.loads(path.read_text())


def verify_output(output: Path, executor_name: str, *, source: Path | None = None, arch: str | None = None,
                  timeout: float = 600.0, check_timeout: float | None = None, jobs: int = 1) -> Evidence:
    run = read_run(output)
    source = source or Path(run["source"])
    spec = load_spec(output)
    all_kernels = [tuple(k) for k in run.get("kernels", [])]
    units = sorted(set(run.get("units") or ()) | {u for u, _ in all_kernels})
    if not (spec.kernels or spec.commands or spec.triton):
        return _verify_by_checks(output, source, executor_name, units, check_timeout, jobs)
    evidence = _verify_kernels(output, source, spec, executor_name, arch, timeout, all_kernels)
    commands = [DiscoveredCheck(name=c.name, kind="spec", origin=Path(spec.source).name, build=c.build, run=c.run,
                                timeout_s=c.timeout_s) for c in spec.commands]
    verdicts = verify_checks(commands, source, output, executor_name,
                             output / ".porter" / "verify" / executor_name / "checks",
                             timeout=check_timeout) if commands and executor_name in CHECK_EXECUTORS else []
    return evidence.model_copy(update={"checks": tuple(verdicts),
                                       "units": unit_evidence(units, evidence.kernels, verdicts)})


def _verify_by_checks(output: Path, source: Path, executor: str, units: list[str],
                      timeout: float | None, jobs: int) -> Evidence:
    if executor not in CHECK_EXECUTORS:
        raise ValueError(f"executor {executor!r}: expected one of {', '.join(CHECK_EXECUTORS)}")
    discovery = discover_checks(source)
    verdicts = verify_checks(discovery.checks, source, output, executor,
                             output / ".porter" / "verify" / executor / "checks", timeout=timeout, jobs=jobs)
    return Evidence(executor=executor, source=str(source), output=str(output), kernels=(), checks=tuple(verdicts),
                    discovery=discovery, units=unit_evidence(units, (), verdicts))


def unit_evidence(units: list[str], kernels: tuple[KernelEvidence, ...] | list[KernelEvidence],
                  checks: tuple[CheckVerdict, ...] | list[CheckVerdict]) -> tuple[UnitEvidence, ...]:
    """One verdict per unit from the kernel specs and checks that exercised it.

    failed: something that covers it failed on the port; passed: something covering it ran and
    passed; compiled-only: only gfx950 builds cover it; not-verified: nothing covering it ran to a
    verdict (no check, the original failed its own check, nothing comparable, a missing toolchain).
    """
    out = []
    for unit in units:
        ks = [k for k in kernels if k.unit == unit]
        cs = [c for c in checks if c.check.covers(unit)]
        failed = [f"kernel {k.kernel}: {k.port.status}: {k.port.reason}" for k in ks if k.port.status in KERNEL_FAILED]
        failed += [f"check {c.check.name}: {c.status}: {c.reason}" for c in cs if c.status in CHECK_FAILED]
        passed = [f"kernel {k.kernel}" for k in ks if k.port.status == "pass"]
        passed += [f"check {c.check.name}" for c in cs if c.status == "pass"]
        built = [f"check {c.check.name}" for c in cs if c.status == "compiled-only"]
        others = [f"{c.check.name}: {c.status}: {c.reason}" for c in cs if c.status not in CHECK_FAILED + ("pass",
                                                                                                          "compiled-only")]
        others += [f"kernel {k.kernel}: {k.port.status}: {k.port.reason}" for k in ks
                   if k.port.status not in KERNEL_FAILED + ("pass",)]
        if failed:
            out.append(UnitEvidence(unit=unit, status="failed", by=tuple(failed), reason=failed[0]))
        elif passed:
            out.append(UnitEvidence(unit=unit, status="passed", by=tuple(passed), reason="; ".join(passed)))
        elif built:
            out.append(UnitEvidence(unit=unit, status="compiled-only", by=tuple(built),
                                    reason="built for gfx950 by its own build files; no check ran it"))
        else:
            out.append(UnitEvidence(unit=unit, status="not-verified", by=tuple(others),
                                    reason=others[0] if others else "no check of the project builds or runs it"))
    return tuple(out)


def _verify_kernels(output: Path, source: Path, spec, executor_name: str, arch: str | None, timeout: float,
                    all_kernels: list) -> Evidence:
    executor = get_executor(executor_name, arch)
    work = output / ".porter" / "verify" / executor.name
    if isinstance(executor, CudaExecutor) and executor.name == "cuda":
        port = verify_project(source, spec, executor, source, workdir=work / "original", all_kernels=all_kernels,
                              timeout=timeout)
        return Evidence(executor=executor.name, source=str(source), output=str(output),
                        kernels=tuple(KernelEvidence(kernel=v.kernel, unit=v.unit, port=v) for v in port))
    baseline_tree = Workspace(output).snapshot(output / ".porter" / "baseline", agents={"translator"})
    port = verify_project(output, spec, executor, source, workdir=work / "port", all_kernels=all_kernels,
                          timeout=timeout)
    hipify = verify_project(baseline_tree, spec, executor, source, workdir=work / "baseline", timeout=timeout)
    by_key = {(v.unit, v.kernel): v for v in hipify}
    rows = []
    for v in port:
        b = by_key.get((v.unit, v.kernel))
        timing = verdict(v.port_run, b.port_run) if b and v.port_run and b.port_run else None
        rows.append(KernelEvidence(kernel=v.kernel, unit=v.unit, port=v, baseline=b, timing_vs_baseline=timing))
    return Evidence(executor=executor.name, source=str(source), output=str(output), kernels=tuple(rows))


def check_from_verdict(port: KernelVerdict, baseline: KernelVerdict | None = None) -> KernelCheck:
    """The state's summary of one kernel's verification (and, given, its time against the baseline)."""
    worst = max(port.outputs, key=lambda c: c.max_abs_error, default=None)
    timing = verdict(port.port_run, baseline.port_run) if baseline and port.port_run and baseline.port_run else None
    return KernelCheck(
        kernel=port.kernel, executor=port.executor, status=port.status,
        max_abs_error=worst.max_abs_error if worst else None, max_rel_error=worst.max_rel_error if worst else None,
        worst_index=worst.worst_index if worst else None,
        port_ms=port.port_run.median_ms if port.port_run else None,
        baseline_ms=timing.baseline_median_ms if timing else None, timing=timing.verdict if timing else "",
        reason=port.reason)


def write_evidence(evidence: Evidence, output: Path) -> tuple[Path, Path]:
    (output / JSON_FILE).write_text(json.dumps(summary(evidence), indent=2, sort_keys=True) + "\n")
    (output / MD_FILE).write_text(render_markdown(evidence))
    return output / JSON_FILE, output / MD_FILE


def summary(evidence: Evidence) -> dict:
    """The JSON form: per kernel the port's and the baseline's status, errors and timings."""
    def side(v: KernelVerdict | None) -> dict | None:
        if v is None:
            return None
        return {"status": v.status, "reason": v.reason, "executor": v.executor,
                "median_ms": v.port_run.median_ms if v.port_run else None,
                "original_median_ms": v.baseline_run.median_ms if v.baseline_run else None,
                "outputs": [c.model_dump(exclude={"dtype", "tolerance"}) | {"dtype": c.dtype, "tolerance": c.tolerance}
                            for c in v.outputs]}

    def check(v: CheckVerdict) -> dict:
        c = v.comparison
        return {"name": v.check.name, "kind": v.check.kind, "origin": v.check.origin, "build": v.check.build,
                "run": v.check.run, "status": v.status, "reason": v.reason,
                "port_build_s": v.port_build.seconds if v.port_build else None,
                "compared": c.compared if c else None,
                "excluded": [e.model_dump() for e in c.excluded] if c else [],
                "original_line": c.original_line if c else "", "port_line": c.port_line if c else ""}

    d = evidence.discovery
    return {"executor": evidence.executor, "source": evidence.source, "output": evidence.output,
            "passed": evidence.passed, "failures": evidence.failures,
            "units": [u.model_dump() for u in evidence.units],
            "checks": [check(v) for v in evidence.checks],
            "discovered": [c.model_dump() for c in d.checks] if d else None,
            "undiscovered": [u.model_dump() for u in d.undiscovered] if d else None,
            "kernels": [{"kernel": k.kernel, "unit": k.unit, "port": side(k.port), "baseline": side(k.baseline),
                         "timing_vs_baseline": k.timing_vs_baseline.model_dump() if k.timing_vs_baseline else None}
                        for k in evidence.kernels]}


def render_markdown(evidence: Evidence) -> str:
    lines = [f"# porter verify: `{evidence.executor}`", "",
             f"source `{evidence.source}`, port `{evidence.output}`", ""]
    verdict = "every unit had a check that ran and passed" if evidence.passed else \
        f"not verified ({len(evidence.failures)}): " + "; ".join(evidence.failures)
    lines += [f"**Result:** {verdict}.", ""]
    if evidence.units:
        lines += ["## Units", "", "| unit | verdict | by |", "| --- | --- | --- |"]
        lines += [f"| `{u.unit}` | {u.status} | {_cell(u.reason)} |" for u in evidence.units]
        lines += [""]
    if evidence.discovery is not None or evidence.checks:
        lines += _render_checks(evidence)
    if not evidence.kernels:
        return "\n".join(lines) + "\n"
    lines += ["## Kernel specs", "",
             "| unit | kernel | port | max abs err | max rel err | direct-hipify baseline | port ms | baseline ms | vs baseline |",
             "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for k in evidence.kernels:
        errs = [c for c in k.port.outputs]
        abs_err = max((c.max_abs_error for c in errs), default=None)
        rel_err = max((c.max_rel_error for c in errs), default=None)
        base = k.baseline.status if k.baseline else "-"
        t = k.timing_vs_baseline
        lines.append(" | ".join([
            f"| `{k.unit}`", f"`{k.kernel}`", k.port.status,
            f"{abs_err:.3g}" if abs_err is not None else "-", f"{rel_err:.3g}" if rel_err is not None else "-",
            base, f"{k.port.port_run.median_ms:.4f}" if k.port.port_run and k.port.port_run.median_ms else "-",
            f"{t.baseline_median_ms:.4f}" if t else "-", f"{t.verdict} ({t.ratio:.2f}x)" if t else "-"]) + " |")
    failing = [k for k in evidence.kernels if k.port.status not in ("pass", "not-exercised")]
    unexercised = [k for k in evidence.kernels if k.port.status == "not-exercised"]
    lines += ["", ("Every exercised kernel matches the original." if not failing else
                   f"{len(failing)} kernel(s) do not: " +
                   "; ".join(f"`{k.kernel}`: {k.port.reason}" for k in failing))
              + (f" {len(unexercised)} kernel(s) not exercised: " + ", ".join(f"`{k.kernel}`" for k in unexercised)
                 + "." if unexercised else "")]
    lines += ["", "Timings are medians of the driver's timed runs on one executor; on hip-on-cuda they show "
              "the emulation's cost, not gfx950's, and say nothing about speed on the target."]
    return "\n".join(lines) + "\n"


def _cell(text: str, limit: int = 300) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit] + "..."


def _render_checks(evidence: Evidence) -> list[str]:
    lines = ["## The project's own checks", ""]
    d = evidence.discovery
    if d is not None:
        how = ("the port built for gfx950 by the stand-in hipcc through its own build files; nothing ran"
               if evidence.executor == "gfx950" else
               f"original built with nvcc, port with the `{evidence.executor}` hipcc, each through its own build "
               "files; the original run twice, the port once")
        lines += [f"Discovered {len(d.checks)} check(s) (no verify spec in the port): {how}.", ""]
    if evidence.checks:
        lines += ["| check | from | kind | result | detail |", "| --- | --- | --- | --- | --- |"]
        for v in evidence.checks:
            lines.append(f"| `{v.check.name}` | `{v.check.origin}` | {v.check.kind} | {v.status} | {_cell(v.reason)} |")
        for v in evidence.checks:
            c = v.comparison
            if c is not None and (c.original_line or c.port_line):
                lines += ["", f"`{v.check.name}`, first differing line:", "", "```",
                          f"original: {c.original_line}", f"port:     {c.port_line}", "```"]
        excluded = sorted({(e.reason, e.line) for v in evidence.checks if v.comparison
                           for e in v.comparison.excluded})
        if excluded:
            lines += ["", "Values left out of the comparison:", ""]
            lines += [f"- {reason}: `{_cell(line, 120)}`" for reason, line in excluded[:40]]
    if d is not None and d.undiscovered:
        lines += ["", "Not made into checks:", ""]
        lines += [f"- `{u.where}`: {u.reason}" for u in d.undiscovered]
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    """`python -m porter.verify.evidence OUT --executor X`: `porter verify` without the CLI's extras."""
    import argparse

    from porter.verify.spec import SpecError

    parser = argparse.ArgumentParser(prog="python -m porter.verify.evidence", description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--executor", default="hip-on-cuda")
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--arch", default=None)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per driver run (a hang is data)")
    parser.add_argument("--jobs", type=int, default=1, help="checks at a time")
    parser.add_argument("--check-timeout", type=float, default=None,
                        help="seconds per step of a project's own check (default: the check's, 300)")
    args = parser.parse_args(argv)
    try:
        evidence = verify_output(args.output, args.executor, source=args.source, arch=args.arch,
                                 timeout=args.timeout, check_timeout=args.check_timeout, jobs=args.jobs)
    except (FileNotFoundError, SpecError, ValueError) as e:
        print(f"error: {e}")
        return 2
    for path in write_evidence(evidence, args.output):
        print(path)
    print(render_markdown(evidence))
    return 0 if evidence.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
