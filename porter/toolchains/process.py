"""One external command run to completion: how porter starts every compiler, build, driver and check.

A failed or hung command is data, not an exception. `run` returns its exit status, its output and
the seconds it took; a command still running at its timeout has its whole process group killed
(a build's make, its compilers, a test's children) and comes back with rc 124, the status
timeout(1) uses, with what it printed so far and a line saying that it was killed.
`build_result` turns that into the `BuildResult` every toolchain wrapper returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from porter.state import BuildResult

# One compile, build step, driver run or check, unless a caller's own setting says otherwise
# (a whole project's build, a spec's timeout_s).
TIMEOUT_S = 600
TIMED_OUT = 124  # timeout(1)'s exit status


@dataclass(frozen=True)
class Finished:
    """A command that ran: what it was, how it ended, what it printed, how long it took."""

    cmd: tuple[str, ...]
    rc: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


def run(cmd: Sequence[str | Path], cwd: Path | None = None, *, env: Mapping[str, str] | None = None,
        timeout: float = TIMEOUT_S, input: str | None = None) -> Finished:
    """Run `cmd` in `cwd` (its own process group, stdin empty unless `input` is given) to completion.

    Output is decoded as UTF-8 with undecodable bytes replaced: a compiler quoting a Latin-1 source
    line is still a result.
    """
    args = [str(c) for c in cmd]
    start = time.monotonic()
    proc = subprocess.Popen(args, cwd=cwd, env=None if env is None else dict(env),
                            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    try:
        out, err = proc.communicate(input, timeout=timeout)
        rc, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc, timed_out = TIMED_OUT, True
        err += f"\nporter: killed after {timeout:g} s (timed out; its whole process group)"
    return Finished(tuple(args), rc, out, err, round(time.monotonic() - start, 3), timed_out)


def build_result(toolchain: str, done: Finished, artifacts: Sequence[Path] = ()) -> BuildResult:
    """The BuildResult of a finished build: `artifacts` are listed only when it succeeded and they exist."""
    ok = done.rc == 0 and all(Path(a).is_file() for a in artifacts)
    return BuildResult(toolchain=toolchain, cmd=done.cmd, rc=done.rc, stdout=done.stdout, stderr=done.stderr,
                       artifacts=tuple(str(a) for a in artifacts) if ok else (), seconds=done.seconds)
