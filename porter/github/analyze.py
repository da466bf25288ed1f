"""One pull-request run: from a checkout of the PR head and its parsed diff to a Plan.

What the change touches is what porter ports: the changed files porter reads (CUDA/C++, CMake,
Make, setup.py, Triton), with the project headers they include (`#include "..."`, followed
transitively) as context, staged into a tree outside the checkout. The port runs in the
sandbox (`porter.github.sandbox`) into an output tree that is also outside the checkout; the
report is porter's own (`porter.report`), and the suggestions come from `porter.github.suggest`.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from porter.github.diff import FileDiff
from porter.github.plan import Plan, build_plan
from porter.github.sandbox import run_port
from porter.github.suggest import suggestions
from porter.graph import report_context
from porter.report import Report, build_report, render_markdown, render_sarif
from porter.scan import classify
from porter.state import FileKind, PortOptions

PORTED_KINDS = frozenset({FileKind.cuda, FileKind.cpp, FileKind.cmake, FileKind.makefile, FileKind.setup_py,
                          FileKind.triton})
_QUOTED_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)


def touched(checkout: Path, diffs: dict[str, FileDiff]) -> list[str]:
    """The changed files of the head that porter ports, sorted."""
    out = []
    for path, d in diffs.items():
        file = checkout / path
        if d.status == "removed" or not file.is_file():
            continue
        kind, _ = classify(path, file.read_bytes())
        if kind in PORTED_KINDS:
            out.append(path)
    return sorted(out)


def stage(checkout: Path, paths: list[str], into: Path) -> list[str]:
    """Copy `paths` and the project headers they include into `into`; return every staged path."""
    root = checkout.resolve()
    todo, seen = list(paths), set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        src = (root / rel).resolve()
        if root not in src.parents or not src.is_file():
            continue  # an include that leaves the checkout, or a system header
        seen.add(rel)
        dest = into / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        for m in _QUOTED_INCLUDE.finditer(src.read_bytes()):
            name = m.group(1).decode(errors="replace")
            for base in (posixpath.dirname(rel), ""):
                cand = posixpath.normpath(posixpath.join(base, name))
                if not cand.startswith("../") and (root / cand).is_file():
                    todo.append(cand)
                    break
    return sorted(seen)


@dataclass(frozen=True)
class Analysis:
    plan: Plan
    report: Report | None  # None: nothing to port
    port_dir: Path | None  # the output tree of the port


def analyze(checkout: Path, diffs: dict[str, FileDiff], head_sha: str, work: Path, options: PortOptions, *,
            pr_number: int | None = None, timeout_s: float = 900.0,
            should_stop: Callable[[], bool] = lambda: False) -> Analysis:
    """Port what the change touches (in the sandbox) and plan what to post. `work` is a scratch
    directory outside the checkout; it holds `src/` (the staged tree) and `port/` (the output)."""
    paths = touched(checkout, diffs)
    if not paths:
        return Analysis(build_plan(head_sha=head_sha, report=None, exit_code=0, diffs=diffs, suggestions=[],
                                   markdown="", pr_number=pr_number), None, None)
    src, out = work / "src", work / "port"
    for d in (src, out):
        if d.exists():
            shutil.rmtree(d)
    src.mkdir(parents=True)
    stage(checkout, paths, src)
    result = run_port(src, out, options, timeout_s=timeout_s, should_stop=should_stop)
    report = build_report(result.state, **report_context())
    # Paths in the SARIF resolve against the checkout, where code scanning will look for them.
    sarif = render_sarif(report.model_copy(update={"source": str(checkout.resolve())}))
    cuda = [p for p in paths if classify(p, (checkout / p).read_bytes())[0] in (FileKind.cuda, FileKind.cpp)]
    notes = list(result.notes) + [f"ported in a sandbox process in {result.seconds:.1f} s"
                                  + (", without network" if result.isolated else "")]
    plan = build_plan(head_sha=head_sha, report=report, exit_code=report.exit_code, diffs=diffs,
                      suggestions=suggestions(checkout, cuda, options), markdown=render_markdown(report),
                      sarif=sarif, pr_number=pr_number, notes=notes)
    return Analysis(plan, report, out)


def ported_files(analysis: Analysis, paths: list[str] | None = None) -> dict[str, bytes]:
    """The port's version of every file it changed or created (under `paths` when given), for a branch."""
    if analysis.report is None or analysis.port_dir is None:
        return {}
    out = {}
    for change in analysis.report.changes:
        if paths and not any(change.path == p or change.path.startswith(p.rstrip("/") + "/") for p in paths):
            continue
        out[change.path] = (analysis.port_dir / change.path).read_bytes()
    return out
