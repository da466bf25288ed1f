"""`porter verify OUT`: numerical and timing evidence for a finished port.

For every kernel spec of the port (its porter.toml), runs three builds of the same seeded
driver: the original with the cuda executor (the reference), the port with the chosen
executor, and the port's translator-only baseline (the direct hipify, rebuilt from the
workspace ledger) with the same executor. The port must match the original; a wave32 bug
that only the microarch agent fixes shows as a baseline mismatch next to a passing port; and
"beats the baseline" is the port's time against that baseline's, measured on one executor.
With `--executor cuda` the original is run against itself (reference outputs and timings).
Writes OUT/porter-verify.json and OUT/porter-verify.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from porter.state import Frozen, KernelCheck
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


class Evidence(Frozen):
    executor: str
    source: str
    output: str
    kernels: tuple[KernelEvidence, ...]

    @property
    def passed(self) -> bool:
        return all(k.port.status in ("pass", "not-exercised") for k in self.kernels)


def read_run(output: Path) -> dict:
    path = output / ".porter" / RUN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{output}: no {path.relative_to(output)}; is this a porter output tree?")
    return json.loads(path.read_text())


def verify_output(output: Path, executor_name: str, *, source: Path | None = None, arch: str | None = None,
                  timeout: float = 600.0) -> Evidence:
    run = read_run(output)
    source = source or Path(run["source"])
    spec = load_spec(output)
    all_kernels = [tuple(k) for k in run.get("kernels", [])]
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

    return {"executor": evidence.executor, "source": evidence.source, "output": evidence.output,
            "passed": evidence.passed,
            "kernels": [{"kernel": k.kernel, "unit": k.unit, "port": side(k.port), "baseline": side(k.baseline),
                         "timing_vs_baseline": k.timing_vs_baseline.model_dump() if k.timing_vs_baseline else None}
                        for k in evidence.kernels]}


def render_markdown(evidence: Evidence) -> str:
    lines = [f"# porter verify: `{evidence.executor}`", "",
             f"source `{evidence.source}`, port `{evidence.output}`", "",
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
    lines += ["", "**Result:** " + ("every exercised kernel matches the original." if not failing else
                                    f"{len(failing)} kernel(s) do not: " +
                                    "; ".join(f"`{k.kernel}`: {k.port.reason}" for k in failing))]
    lines += ["", "Timings are medians of the driver's timed runs on one executor; on hip-on-cuda they show "
              "the emulation's cost, not gfx950's, and say nothing about speed on the target."]
    return "\n".join(lines) + "\n"


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
    args = parser.parse_args(argv)
    try:
        evidence = verify_output(args.output, args.executor, source=args.source, arch=args.arch,
                                 timeout=args.timeout)
    except (FileNotFoundError, SpecError, ValueError) as e:
        print(f"error: {e}")
        return 2
    for path in write_evidence(evidence, args.output):
        print(path)
    print(render_markdown(evidence))
    return 0 if evidence.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
