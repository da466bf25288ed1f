"""Run a project's own checks on the original and on the port, each through its own build files.

For each `DiscoveredCheck` (porter.verify.discover): the original tree, copied under the work
folder, is built with its own build step and nvcc on PATH, and its run step runs twice (the second
run starts in a wall-clock second after the one the first ended in, so values seeded by `time(NULL)`
differ between them); the
port's tree, copied beside it, is built with the same step and a `hipcc` the executor provides
(porter.toolchains.hipcc: `hip-on-cuda` over nvcc with AMD wave64 semantics, `gfx950` the
CPU-only clang stand-in, `rocm` the real one on PATH), and its run step runs once. The three
outputs are compared by porter.verify.outputs.

- `gfx950` builds only: the verdict is "compiled-only", never a pass.
- Every step has a timeout (the check's, default 300 s); on expiry the whole process group is
  killed and the check is "timeout".
- Steps run with the copied tree's folder as working directory; everything they write stays
  under the work folder (default OUT/.porter/verify/<executor>/checks), never in the source.

Imports only pydantic and porter's light modules, so it runs on a GPU machine that has no
LangGraph or tree-sitter (docs/evidence/run_checks_h200.sh).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from porter.state import CheckStatus, Frozen
from porter.toolchains import ToolchainMissing, process
from porter.verify.discover import CMAKE_BUILD_DIR, DiscoveredCheck
from porter.verify.outputs import OutputComparison, ProgramRun, compare_outputs

CHECK_EXECUTORS = ("cuda", "hip-on-cuda", "rocm", "gfx950")
# Verdicts that are the port's fault; the others say nothing about it either way.
CHECK_FAILED = ("mismatch", "port-build-failed", "port-failed", "timeout")
# Files of a port tree that are porter's, not the project's: not copied for a build.
PORTER_FILES = {".porter", "porter-report.md", "porter-report.json", "porter-report.sarif", "porter-verify.json",
                "porter-verify.md", CMAKE_BUILD_DIR}


class StepResult(Frozen):
    """One shell step (a build or a run) of a check."""

    command: str
    cwd: str
    rc: int | None  # None: killed at the timeout
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def as_run(self) -> ProgramRun:
        return ProgramRun(rc=self.rc, stdout=self.stdout, stderr=self.stderr, seconds=self.seconds,
                          timed_out=self.timed_out)


class CheckVerdict(Frozen):
    """One check, original against port: what ran, and what it showed."""

    check: DiscoveredCheck
    executor: str
    status: CheckStatus
    reason: str = ""
    original_build: StepResult | None = None
    port_build: StepResult | None = None
    original_runs: tuple[StepResult, ...] = ()
    port_run: StepResult | None = None
    comparison: OutputComparison | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def ran(self) -> bool:
        """Whether the port's program ran (its numbers were looked at), whatever the outcome."""
        return self.port_run is not None


def run_step(command: str, cwd: Path, env: Mapping[str, str], timeout: float) -> StepResult:
    """`command` by /bin/sh in `cwd`; at `timeout` its whole process group is killed."""
    done = process.run(["/bin/sh", "-c", command], cwd, env=env, timeout=timeout)
    return StepResult(command=command, cwd=str(cwd), rc=None if done.timed_out else done.rc, stdout=done.stdout,
                      stderr=done.stderr, timed_out=done.timed_out, seconds=done.seconds)


def copy_tree(src: Path, dest: Path) -> Path:
    """A fresh copy of a project tree for its build, without porter's own files and old build folders."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=True, ignore=lambda _d, names: [n for n in names if n in PORTER_FILES])
    return dest


def executor_envs(executor: str, workdir: Path, base: Mapping[str, str] | None = None
                  ) -> tuple[dict[str, str], dict[str, str]]:
    """(original's environment, port's environment) for `executor`. Raises ToolchainMissing.

    The original always builds with nvcc (its folder first on PATH). The port: `cuda` is the
    original against itself; `hip-on-cuda` and `gfx950` get porter's hipcc root; `rocm` the
    environment as it is (ROCm's hipcc on PATH).
    """
    if executor not in CHECK_EXECUTORS:
        raise ValueError(f"executor {executor!r}: expected one of {', '.join(CHECK_EXECUTORS)}")
    base = dict(os.environ if base is None else base)
    original = dict(base)
    if executor != "gfx950":
        from porter.toolchains.nvcc import find_nvcc

        nvcc_dir = str(find_nvcc().parent)
        original["PATH"] = os.pathsep.join(p for p in (nvcc_dir, base.get("PATH", "")) if p)
    if executor in ("cuda", "rocm"):
        return original, dict(original if executor == "cuda" else base)
    from porter.toolchains.hipcc import hipcc_env, hipcc_root

    root = hipcc_root(executor, workdir / "toolchain")  # type: ignore[arg-type]
    return original, hipcc_env(root, base)


def verify_checks(checks: list[DiscoveredCheck] | tuple[DiscoveredCheck, ...], source: Path, output: Path,
                  executor: str, workdir: Path, *, timeout: float | None = None,
                  base_env: Mapping[str, str] | None = None, jobs: int = 1) -> list[CheckVerdict]:
    """Every check on the original (`source`) and the port (`output`), as the module docstring says.

    `timeout` overrides each check's own (seconds per step); `jobs` checks run at a time (the
    runs of one check stay in order, so its two original runs and the port's do not overlap;
    timings are then indicative only, and they are excluded anyway). Never raises for a bad port; a
    missing toolchain makes every check "not-checked" with the reason.
    """
    if not checks:
        return []
    workdir = workdir.resolve()
    build_only = executor == "gfx950"
    try:
        original_env, port_env = executor_envs(executor, workdir, base_env)
    except ToolchainMissing as e:
        return [CheckVerdict(check=c, executor=executor, status="not-checked", reason=str(e)) for c in checks]
    # With `cuda` the original runs against itself: the reference outputs, one tree, one build.
    trees = {"port": copy_tree(source if executor == "cuda" else output, workdir / "port")}
    if not build_only:
        trees["original"] = trees["port"] if executor == "cuda" else copy_tree(source, workdir / "original")
    envs = {"original": original_env, "port": port_env}
    builds: dict[tuple[str, str, str], StepResult] = {}  # one build per (side, folder, command)
    locks: dict[tuple[str, str, str], threading.Lock] = {}
    guard = threading.Lock()

    def build(side: str, check: DiscoveredCheck) -> StepResult | None:
        if not check.build:
            return None
        side = "original" if executor == "cuda" else side
        key = (side, check.directory, check.build)
        with guard:
            lock = locks.setdefault(key, threading.Lock())
        with lock:  # checks of one folder share its build; other folders build meanwhile
            if key not in builds:
                builds[key] = run_step(check.build, trees[side] / check.directory, envs[side],
                                       timeout or check.timeout_s)
        return builds[key]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda c: _verify_one(c, executor, build_only, trees, envs, build, timeout), checks))


def _verify_one(check: DiscoveredCheck, executor: str, build_only: bool, trees: dict[str, Path],
                envs: dict[str, dict[str, str]], build, timeout: float | None) -> CheckVerdict:
    head = {"check": check, "executor": executor}
    limit = timeout or check.timeout_s
    if not (trees["port"] / check.directory).is_dir():
        return CheckVerdict(**head, status="port-build-failed", reason=f"the port has no folder {check.directory}")
    port_build = build("port", check)
    if build_only and port_build is not None and not port_build.ok:
        why = "timed out" if port_build.timed_out else f"exited {port_build.rc}"
        return CheckVerdict(**head, status="port-build-failed", port_build=port_build,
                            reason=f"`{check.build}` {why} on the port: {_tail(port_build.stderr or port_build.stdout)}")
    if build_only:
        return CheckVerdict(**head, status="compiled-only", port_build=port_build,
                            reason="built for gfx950 by its own build files; nothing ran (no AMD GPU here)")
    original_build = build("original", check)
    head |= {"original_build": original_build, "port_build": port_build}
    if original_build is not None and not original_build.ok:
        return CheckVerdict(**head, status="original-build-failed",
                            reason=f"`{check.build}` exited {original_build.rc} on the original with nvcc: "
                                   f"{_tail(original_build.stderr or original_build.stdout)}; nothing to compare")
    folder = {side: trees[side] / check.directory for side in trees}
    first = run_step(check.run, folder["original"], envs["original"], limit)
    if not first.timed_out:
        _next_second(time.time())
    second = run_step(check.run, folder["original"], envs["original"], limit) if not first.timed_out else first
    if port_build is not None and not port_build.ok:
        # The original still ran: whether it passes its own check tells a port bug from a program that fails anyway.
        why = "timed out" if port_build.timed_out else f"exited {port_build.rc}"
        return CheckVerdict(**head, status="port-build-failed", original_runs=(first, second),
                            reason=f"`{check.build}` {why} on the port: {_tail(port_build.stderr or port_build.stdout)}")
    port = run_step(check.run, folder["port"], envs["port"], limit)
    comparison = compare_outputs(first.as_run(), second.as_run(), port.as_run(),
                                 exit_status_is_check=check.exit_status_is_check, timed=check.timed_lines)
    status: CheckStatus = comparison.status  # type: ignore[assignment]
    return CheckVerdict(**head, status=status, reason=comparison.reason, original_runs=(first, second),
                        port_run=port, comparison=comparison)


_COARSE_CLOCK_LAG_S = 0.1  # more than a kernel tick (at most 10 ms at HZ=100), with room for a busy VM


def _next_second(ended: float) -> None:
    """Wait until the wall clock has left the second in which the first run ended.

    `srand(time(NULL))` is the commonest seed of C and C++ programs; two runs that read the clock
    within one second draw the same numbers, so the values they print would look deterministic and
    be compared against a port that ran later with other data. The first run read its clock at the
    latest in the second it ended in; the second run starts after it, with a margin for C's `time()`,
    which reads the kernel's coarse clock and lags the precise one by up to a tick."""
    left = int(ended) + 1 + _COARSE_CLOCK_LAG_S - time.time()
    if left > 0:
        time.sleep(left)


def _tail(text: str, limit: int = 600) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]
