"""Verify a ported project numerically: every kernel spec, original against port.

`verify_project` renders each kernel's driver (porter.verify.driver), builds it against the
original (baseline_dir, with the cuda executor unless told otherwise) and against the port
(output_dir, with the chosen executor), runs both, checks that both builds generated the
same inputs, compares every output (porter.verify.compare) and sets the port's time against
the baseline's (executors.verdict). Kernels the scan found but no spec names are reported
"not-exercised". `run_commands` runs the project's own test programs (`[[verify.command]]`).

Everything it writes goes under `workdir` (default: output_dir/.porter/verify), one folder per
kernel and side. It never raises for a bad port: failures are data in `KernelVerdict`. Each
kernel's check is a task of the run's dispatcher (porter.cluster): one GPU of the executor's
type each on Ray, where it reads snapshots of the two trees and returns what it wrote.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from porter import cluster
from porter.state import BuildResult, Frozen, KernelStatus
from porter.toolchains import ToolchainMissing, process
from porter.verify.compare import Comparison, compare_files
from porter.verify.driver import render_driver
from porter.verify.executors import CudaExecutor, Executor, RunResult, TimingVerdict, verdict
from porter.verify.spec import ArrayArg, CommandSpec, KernelSpec, VerifySpec, load_spec

STATE_DIR = ".porter"  # porter.workspace.STATE_DIR: the output tree's own state folder
RUN_TIMEOUT_S = float(process.TIMEOUT_S)



class KernelVerdict(Frozen):
    """The numerical and timing evidence for one kernel."""

    kernel: str
    unit: str
    status: KernelStatus
    executor: str = ""
    baseline_executor: str = ""
    outputs: tuple[Comparison, ...] = ()
    timing: TimingVerdict | None = None
    inputs_match: bool | None = None
    baseline_build: BuildResult | None = None
    port_build: BuildResult | None = None
    baseline_run: RunResult | None = None
    port_run: RunResult | None = None
    reason: str = ""


class CommandVerdict(Frozen):
    name: str
    passed: bool
    build: BuildResult | None = None
    rc: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    reason: str = ""


def verify_project(output_dir: Path, spec: VerifySpec | None, executor: Executor, baseline_dir: Path, *,
                   baseline_executor: Executor | None = None, workdir: Path | None = None,
                   all_kernels: Iterable[tuple[str, str]] = (), timeout: float = RUN_TIMEOUT_S) -> list[KernelVerdict]:
    """One KernelVerdict per kernel spec, then one "not-exercised" per (unit, kernel) in
    `all_kernels` that no spec covers.

    `spec` None reads the port's porter.toml. `baseline_dir` holds the original sources
    (same relative unit paths); `baseline_executor` defaults to the cuda executor. For the
    like-for-like timing of DESIGN.md (port against its translator-only port, same executor)
    pass that port as `baseline_dir` and `executor` as `baseline_executor`.
    """
    spec = load_spec(output_dir) if spec is None else spec
    if baseline_executor is None:
        baseline_executor = CudaExecutor(arch=getattr(executor, "arch", "sm_90")) \
            if isinstance(executor, CudaExecutor) else CudaExecutor()
    workdir = (workdir or output_dir / STATE_DIR / "verify").resolve()
    spec_file = Path(spec.source).name if spec.source else "porter.toml"
    verdicts = _verify_kernels(spec.kernels, output_dir, baseline_dir, executor, baseline_executor, workdir,
                               spec_file, timeout)
    covered = {(k.unit, k.name.split("<", 1)[0].rsplit("::", 1)[-1]) for k in spec.kernels}
    seen: set[tuple[str, str]] = set()
    for unit, name in all_kernels:
        if (unit, name) in covered or (unit, name) in seen:
            continue
        seen.add((unit, name))
        verdicts.append(KernelVerdict(kernel=name, unit=unit, status="not-exercised",
                                      reason="no [[verify.kernel]] spec names this kernel"))
    return verdicts


@dataclass(frozen=True)
class _KernelJob:
    """What every kernel's GPU check shares (porter.cluster): the two trees, the executors, where to write."""

    port: cluster.Tree
    original: cluster.Tree
    executor: Executor
    baseline_executor: Executor
    workdir: str
    spec_file: str
    timeout: float


def _verify_kernels(kernels: Iterable[KernelSpec], output_dir: Path, baseline_dir: Path, executor: Executor,
                    baseline_executor: Executor, workdir: Path, spec_file: str, timeout: float) -> list[KernelVerdict]:
    """One GPU check per kernel through the run's dispatcher: in-process one after the other (the
    timings must not share a GPU), on Ray one task with one GPU of the executor's type each."""
    kernels = list(kernels)
    if not kernels:
        return []
    dispatcher = cluster.current()
    job = _KernelJob(dispatcher.tree(output_dir, cluster.shipped_paths(output_dir)),
                     dispatcher.tree(baseline_dir, cluster.shipped_paths(baseline_dir)),
                     executor, baseline_executor, str(workdir), spec_file, timeout)
    try:
        returned = dispatcher.map(_kernel_check, kernels, resources=cluster.gpu_check(executor.name), shared=job,
                                  label=_slug)
    except cluster.ClusterError as e:
        returned = [cluster.TaskFailed(str(e))] * len(kernels)
    return [KernelVerdict(kernel=k.name, unit=k.unit, executor=executor.name,
                          baseline_executor=baseline_executor.name, status="not-checked", reason=r.reason)
            if isinstance(r, cluster.TaskFailed) else r.land() for k, r in zip(kernels, returned)]


def _kernel_check(job: _KernelJob, k: KernelSpec) -> cluster.Returned[KernelVerdict]:
    with cluster.task_places({"port": job.port, "original": job.original}, job.workdir) as (trees, scratch, finish):
        return finish(_verify_kernel(k, trees["port"], trees["original"], job.executor, job.baseline_executor,
                                     scratch.path / _slug(k), job.spec_file, job.timeout))


def _slug(k: KernelSpec) -> str:
    return re.sub(r"[^\w.-]+", "_", f"{k.unit}-{k.name}").strip("_")


def _verify_kernel(k: KernelSpec, output_dir: Path, baseline_dir: Path, executor: Executor,
                   baseline_executor: Executor, workdir: Path, spec_file: str, timeout: float) -> KernelVerdict:
    head = {"kernel": k.name, "unit": k.unit, "executor": executor.name, "baseline_executor": baseline_executor.name}
    for side, root in (("original", baseline_dir), ("port", output_dir)):
        if not (root / k.unit).is_file():
            status = "baseline-failed" if side == "original" else "port-build-failed"
            return KernelVerdict(**head, status=status, reason=f"{side} unit {root / k.unit} does not exist")
    text = render_driver(k, spec_file)
    sides = {"baseline": (baseline_executor, baseline_dir, workdir / "baseline"),
             "port": (executor, output_dir, workdir / "port")}
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:  # two compiles; the runs below stay serial
            futures = {}
            for side, (ex, root, wd) in sides.items():
                wd.mkdir(parents=True, exist_ok=True)
                driver = wd / f"porter_driver{ex.driver_suffix}"
                driver.write_text(text, encoding="utf-8")
                futures[side] = pool.submit(ex.build, root, driver, wd)
            builds = {side: f.result() for side, f in futures.items()}
    except ToolchainMissing as e:
        return KernelVerdict(**head, status="not-checked", reason=str(e))
    head |= {"baseline_build": builds["baseline"], "port_build": builds["port"]}
    if not builds["baseline"].ok:
        return KernelVerdict(**head, status="baseline-failed",
                             reason=f"the driver did not build against the original: {_tail(builds['baseline'].stderr)}")
    if not builds["port"].ok:
        return KernelVerdict(**head, status="port-build-failed", reason=_tail(builds["port"].stderr))
    runs: dict[str, RunResult] = {}
    for side, (ex, _root, wd) in sides.items():
        runs[side] = ex.run(Path(builds[side].artifacts[0]), wd, timeout)
    head |= {"baseline_run": runs["baseline"], "port_run": runs["port"]}
    if not runs["baseline"].ok:
        return KernelVerdict(**head, status="baseline-failed", reason=f"original: {runs['baseline'].error}")
    if not runs["port"].ok:
        return KernelVerdict(**head, status="port-run-failed", reason=runs["port"].error)
    inputs_match = runs["baseline"].input_hashes == runs["port"].input_hashes
    if not inputs_match:
        differ = sorted(n for n in runs["baseline"].input_hashes
                        if runs["baseline"].input_hashes[n] != runs["port"].input_hashes.get(n))
        return KernelVerdict(**head, status="not-checked", inputs_match=False,
                             reason=f"the two builds generated different inputs ({', '.join(differ)}): "
                                    "the driver's PRNG is not bit-identical across them; nothing was compared")
    comparisons = tuple(_compare_output(k, name, runs["baseline"], runs["port"]) for name in k.output_names)
    failed = [c for c in comparisons if not c.passed]
    return KernelVerdict(**head, status="mismatch" if failed else "pass", inputs_match=True, outputs=comparisons,
                         timing=verdict(runs["port"], runs["baseline"]),
                         reason="; ".join(f"{c.name}: {c.reason}" for c in failed))


def _compare_output(k: KernelSpec, name: str, baseline: RunResult, port: RunResult) -> Comparison:
    arg = k.arg(name)
    assert isinstance(arg, ArrayArg)  # KernelSpec validates that outputs are arrays
    missing = [side for side, run in (("original", baseline), ("port", port))
               if name not in run.outputs or not Path(run.outputs[name]).is_file()]
    if missing:
        return Comparison(name=name, dtype=arg.dtype, tolerance=k.tolerance, rtol=0.0, atol=0.0, passed=False,
                          reason=f"no .npy from the {' and the '.join(missing)} run")
    return compare_files(Path(baseline.outputs[name]), Path(port.outputs[name]), name=name, dtype=arg.dtype,
                         cls=k.tolerance, depth=k.depth_value(), rtol=k.rtol, atol=k.atol)


def _tail(text: str, limit: int = 800) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


# ---------------------------------------------------------------------------------- commands

def run_commands(project_dir: Path, spec: VerifySpec, env: dict[str, str] | None = None) -> list[CommandVerdict]:
    """Run each `[[verify.command]]` in `project_dir` with a shell (the commands are the project's own,
    as its Makefile's are): build, then run, then the pass criterion."""
    return [_run_command(c, project_dir, env) for c in spec.commands]


def _shell(command: str, cwd: Path, timeout: float, env: dict[str, str] | None) -> tuple[int, str, str, float]:
    done = process.run(["/bin/sh", "-c", command], cwd, env={**os.environ, **(env or {})}, timeout=timeout)
    return done.rc, done.stdout, done.stderr, done.seconds


def _run_command(c: CommandSpec, project_dir: Path, env: dict[str, str] | None) -> CommandVerdict:
    build = None
    if c.build:
        rc, out, err, secs = _shell(c.build, project_dir, c.timeout_s, env)
        build = BuildResult(toolchain="project", cmd=("/bin/sh", "-c", c.build), rc=rc, stdout=out, stderr=err,
                            seconds=secs)
        if rc != 0:
            return CommandVerdict(name=c.name, passed=False, build=build, reason=f"build exited {rc}: {_tail(err)}")
    rc, out, err, secs = _shell(c.run, project_dir, c.timeout_s, env)
    reasons = []
    if c.expect_rc and rc != 0:
        reasons.append(f"exit code {rc}")
    if c.stdout_regex is not None and not re.search(c.stdout_regex, out, re.M):
        reasons.append(f"no stdout line matches {c.stdout_regex!r}")
    return CommandVerdict(name=c.name, passed=not reasons, build=build, rc=rc, stdout=out, stderr=err, seconds=secs,
                          reason="; ".join(reasons))
