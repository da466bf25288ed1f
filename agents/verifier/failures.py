"""Compile-error classes and the agent each goes back to.

The verifier reads clang's diagnostics for a failed unit, names the first error's class, and
routes the unit to the agent that owns that class (DESIGN.md: compile error -> translator or
shim by error class). Classes are matched on clang's wording, which is stable across releases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.M)
_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'|unknown type name '(\w+)'|"
                         r"no member named '(\w+)' in the global namespace")
_CUDA_NAME = re.compile(r"^(cuda|cu[A-Z]|CU_|CUDA_|cublas|curand|cufft|cusparse|cusolver|cudnn|__nv_|nv)")


@dataclass(frozen=True)
class CompileError:
    file: str
    line: int
    column: int
    message: str
    failure_class: str
    name: str = ""  # the identifier concerned, for the undeclared classes


def first_error(stderr: str) -> CompileError | None:
    """The first error clang reported, classified; None when there is no `error:` line."""
    m = _ERROR.search(stderr)
    if not m:
        return None
    msg = m["msg"]
    name = ""
    if "mask must be a 64-bit integer" in msg or "The mask must be" in msg:
        cls = "sync-mask-width"
    elif "file not found" in msg:
        cls = "header-not-found"
    elif (u := _UNDECLARED.search(msg)) is not None:
        name = next(g for g in u.groups() if g)
        cls = "cuda-name-left" if _CUDA_NAME.match(name) else "missing-declaration"
    elif "inline asm" in msg or "invalid instruction" in msg or "invalid operand" in msg:
        cls = "inline-asm"
    else:
        cls = "other"
    return CompileError(m["file"], int(m["line"]), int(m["col"]), msg, cls, name)


# Owner of each class. "other" goes to the translator: it is the agent that rewrote the text.
ROUTES = {
    "cuda-name-left": "translator",
    "header-not-found": "translator",
    "other": "translator",
    "missing-declaration": "shim",
    "sync-mask-width": "microarch",
    "inline-asm": "microarch",
    "mismatch": "microarch",  # numbers differ from the original: the rewrite is suspect first
    "build-files": "translator",  # the port's own Makefile/CMake does not build: BLD rules are the translator's
    "slower": "microarch",  # slower than the direct hipify on the target
}


def route_of(failure_class: str) -> str:
    return ROUTES.get(failure_class, "translator")

