"""Run porter over pull-request code in a separate process that holds no secrets.

A pull request's build files and sources are code its author wrote; porter's verifier compiles
them (and, with an executor, runs them). So the port runs in a child process: a timeout, an
environment built from an allow-list (never the webhook secret, the App key, a GitHub token or
a model key unless the run asks for a model), a scratch HOME and TMPDIR, and no network where
the kernel lets an unprivileged user make a network namespace (`unshare -rn`, util-linux).
Where it does not (some CI hosts forbid user namespaces), the run says so in its notes.

The child is this module: `python -m porter.github.sandbox SOURCE OUTPUT OPTIONS_JSON` runs
`porter.run.port` and writes the final state to OUTPUT/.porter/github-state.json.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from porter.llm.providers import KEY_VARIABLES
from porter.state import PortOptions, PortState

STATE_FILE = "github-state.json"
# What a compile needs: where the tools are, the locale, and the toolchain overrides porter reads.
ALLOWED_ENV = ("PATH", "LANG", "LC_ALL", "PORTER_CLANG", "PORTER_NVCC", "PORTER_HIPCC", "PORTER_HIP_ON_CUDA",
               "ROCM_PATH", "HIP_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")


class SandboxError(RuntimeError):
    """The child failed, timed out or was stopped; the message says which, with its last output."""


@dataclass(frozen=True)
class SandboxResult:
    state: PortState
    isolated: bool  # ran in its own network namespace
    seconds: float
    notes: tuple[str, ...]


@cache
def can_unshare() -> bool:
    """Whether `unshare -rn` works here (user and network namespaces for an unprivileged user)."""
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        return subprocess.run([exe, "-rn", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def child_env(scratch: Path, options: PortOptions, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the allow-list, plus the model's key only when the run uses a model."""
    env = os.environ if environ is None else environ
    out = {k: env[k] for k in ALLOWED_ENV if k in env}
    out.update(HOME=str(scratch), TMPDIR=str(scratch), PYTHONDONTWRITEBYTECODE="1")
    provider = options.model.spec.split(":", 1)[0]
    if options.model.spec != "none" and provider in KEY_VARIABLES and KEY_VARIABLES[provider] in env:
        out[KEY_VARIABLES[provider]] = env[KEY_VARIABLES[provider]]
    return out


def run_port(source: Path, output: Path, options: PortOptions, *, timeout_s: float = 900.0,
             should_stop: Callable[[], bool] = lambda: False) -> SandboxResult:
    """Port `source` into `output` in the sandbox and return the final state."""
    output.mkdir(parents=True, exist_ok=True)
    scratch = output.parent / (output.name + ".scratch")
    scratch.mkdir(exist_ok=True)
    opts_file = scratch / "options.json"
    opts_file.write_text(options.model_dump_json())
    notes: list[str] = []
    # A model needs the network; otherwise the child gets none where the host allows it.
    isolate = options.model.spec == "none" and not options.model.replay and can_unshare()
    if not isolate and options.model.spec == "none":
        notes.append("network isolation unavailable on this host (unshare -rn failed): the port ran with "
                     "a clean environment and a timeout only")
    cmd = [sys.executable, "-m", "porter.github.sandbox", str(source), str(output), str(opts_file)]
    if isolate:
        cmd = ["unshare", "-rn", *cmd]
    start = time.monotonic()
    log = scratch / "sandbox.log"
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=child_env(scratch, options),
                                cwd=scratch, start_new_session=True)
        try:
            while proc.poll() is None:
                if should_stop():
                    _kill(proc)
                    raise SandboxError("stopped on request (/porter stop)")
                if time.monotonic() - start > timeout_s:
                    _kill(proc)
                    raise SandboxError(f"timed out after {timeout_s:g} s")
                time.sleep(0.2)
        finally:
            if proc.poll() is None:
                _kill(proc)
    state_file = output / ".porter" / STATE_FILE
    if proc.returncode != 0 or not state_file.exists():
        tail = log.read_text(errors="replace")[-2000:]
        raise SandboxError(f"porter exited {proc.returncode} in the sandbox:\n{tail}")
    state = PortState.model_validate_json(state_file.read_text())
    return SandboxResult(state=state, isolated=isolate, seconds=time.monotonic() - start, notes=tuple(notes))


def _kill(proc: subprocess.Popen) -> None:
    """End the child and everything it started (its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def main(argv: list[str]) -> int:
    from porter.run import port

    source, output, opts_file = (Path(a) for a in argv)
    options = PortOptions.model_validate_json(opts_file.read_text())
    state = port(source, output, options)
    (output / ".porter" / STATE_FILE).write_text(state.model_dump_json())
    print(json.dumps({"run_id": state.run_id, "findings": len(state.findings)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
