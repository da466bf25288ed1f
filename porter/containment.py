"""porter's own failures, contained: an exception becomes an `internal-error` finding on its unit.

A rule, a parser or a toolchain call that raises must not lose the run: the rule runner, the
per-file loop and each graph node catch the exception here and turn it into a finding that
names what failed (the rule id or the step), the exception, and the innermost frame of porter's
own code, so the bug can be found without a traceback. The run goes on with the other rules,
files and nodes; the report lists every unit porter failed on and the run exits 3.
"""

from __future__ import annotations

import traceback

from porter.state import INTERNAL_ERROR, Finding, Location, Severity

RUN = ""  # the "unit" of a failure that belongs to no one file (a whole graph node)


def porter_frame(exc: BaseException) -> str:
    """`module.py:LINE in function` of the innermost frame of porter's code the exception passed through."""
    found = ""
    for frame, line in traceback.walk_tb(exc.__traceback__):
        module = frame.f_globals.get("__name__", "")
        if module == "porter" or module.startswith("porter."):
            found = f"{module}:{line} in {frame.f_code.co_name}"
    return found or "outside porter's code"


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


def internal_error(path: str, step: str, exc: BaseException, *, agent: str = "") -> Finding:
    """The finding that records porter failing at `step` (a rule id or a node) on `path` (RUN: the run)."""
    return Finding(rule=INTERNAL_ERROR, severity=Severity.error, agent=agent,
                   message=f"porter failed in {step}: {describe(exc)}",
                   location=Location(path=path, line=1),
                   detail=f"{step}: {describe(exc)}\nat {porter_frame(exc)}")
