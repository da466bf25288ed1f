"""The terminal summary printed after `porter port`: counts, what was not verified, the worst
open hazards and where the three report files are. The full story is in porter-report.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter.report.markdown import estimate_text
from porter.report.model import REPORT_FILES, SEVERITY_ORDER, TOKEN_BY_TOKEN, Report
from porter.state import Severity

TOP_HAZARDS = 10
_STYLE = {Severity.error: "bold red", Severity.warning: "yellow", Severity.info: "dim"}
_VERDICT_STYLE = {"compiled": "green", "failed": "bold red", "not-checked": "yellow"}


def render_console(report: Report, console: Console, *, files: Iterable[Path] | None = None) -> None:  # noqa: C901 - one section per report part; legacy, over the limit when ruff came in
    """Print the summary; `files` defaults to the report files at the top of the output tree."""
    paths = list(files) if files is not None else [Path(report.output) / n for n in REPORT_FILES.values()]
    console.print(f"[bold]porter[/] run {escape(report.run_id)}: {escape(report.source)} -> {escape(report.output)}")
    console.print(_summary(report))
    if report.units:
        console.print(_units(report))
    if report.incomplete:
        console.print("[bold red]Porter failed[/] (a bug in porter: these units' ports are incomplete)")
        for i in report.incomplete:
            console.print(f"  [red]{escape(i.unit or 'the run')}[/]: {escape(i.step)}: {escape(i.error)} "
                          f"(at {escape(i.at)})")
    if report.not_ported:
        console.print("[bold yellow]Not ported[/]")
        for n in report.not_ported:
            console.print(f"  [yellow]{escape(n.path)}[/]: {escape(n.reason)}")
    flagged = [c for c in report.changes if c.flag]
    if flagged:
        console.print(f"[yellow]{len(flagged)} changed files {TOKEN_BY_TOKEN}[/]")
        for c in flagged[:TOP_HAZARDS]:
            console.print(f"  {escape(c.path)}")
    missing = {name: v for name, v in report.toolchains.items() if v.startswith("missing")}
    if report.not_verified or missing or report.notes:
        console.print("[bold yellow]Not verified[/]")
        for n in report.not_verified:
            why = "compiled only: no check ran its numbers" if n.level == "compiled-only" else n.reason
            console.print(f"  [yellow]{escape(n.unit)}[/]: {escape(why)}")
        for name, why in missing.items():
            console.print(f"  toolchain {escape(name)}: {escape(why)}")
        for note in report.notes:
            console.print(f"  note: {escape(note)}")
    if report.estimates:
        console.print(_estimates(report))
    if report.open_findings:
        console.print(_hazards(report))
    if report.model_use:
        console.print(_model(report))
    console.print("Reports:")
    for p in paths:
        console.print(f"  {escape(str(p))}")
    if report.exit_code == 0:
        console.print("[bold green]passes[/] (exit 0)")
    elif report.exit_code == 3:
        console.print(f"[bold red]porter failed[/] (exit 3): {escape(', '.join(report.blocking))}")
    else:
        console.print(f"[bold red]needs a person[/] (exit 1): {escape(', '.join(report.blocking))}")


def _summary(r: Report) -> Table:
    s = r.summary
    t = Table(title="Summary", show_header=False, title_justify="left")
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_row("files", str(s.files))
    t.add_row("files changed / created", f"{s.files_changed} / {s.files_created}")
    t.add_row("kernels", str(s.kernels))
    t.add_row("units compiled", f"[green]{s.units_compiled}[/]")
    t.add_row("units failed", f"[red]{s.units_failed}[/]" if s.units_failed else "0")
    t.add_row("units not checked", f"[yellow]{s.units_not_checked}[/]" if s.units_not_checked else "0")
    t.add_row("findings", ", ".join(f"{n} {sev}" for sev, n in s.hazards.items()))
    t.add_row("open hazards", f"[red]{s.open_hazards}[/]" if s.open_hazards else "0")
    return t


def _units(r: Report) -> Table:
    t = Table(title="Units", title_justify="left")
    for name in ("unit", "verdict", "detail"):
        t.add_column(name)
    for u in sorted(r.units, key=lambda u: (0 if u.verdict == "failed" else 1, u.unit)):
        style = _VERDICT_STYLE.get(u.verdict, "")
        detail = u.error or u.reason or u.failure_class
        t.add_row(escape(u.unit), f"[{style}]{u.verdict}[/]", escape(detail))
    return t


def _estimates(r: Report) -> Table:
    t = Table(title="Estimated performance (perfmodel: predicted, not measured)", title_justify="left")
    for name in ("unit", "kernel", "problem", "estimate"):
        t.add_column(name)
    for unit, e in r.estimates:
        t.add_row(escape(unit), escape(e.kernel), escape(e.problem), escape(estimate_text(e)))
    return t


def _hazards(r: Report) -> Table:
    worst = sorted(r.open_findings, key=lambda f: SEVERITY_ORDER[f.severity])
    more = len(worst) - TOP_HAZARDS
    caption = f"and {more} more in porter-report.md" if more > 0 else None
    t = Table(title="Open hazards", title_justify="left", caption=caption, caption_justify="left")
    for name in ("severity", "rule", "location", "message"):
        t.add_column(name)
    for f in worst[:TOP_HAZARDS]:
        t.add_row(f"[{_STYLE[f.severity]}]{f.severity}[/]", f.rule, escape(str(f.location)), escape(f.message))
    return t


def _model(r: Report) -> Table:
    t = Table(title="Model calls", title_justify="left")
    for name in ("agent", "calls", "tokens in/out", "cost USD", "patched", "rejected", "reverted"):
        t.add_column(name, justify="left" if name == "agent" else "right")
    for u in r.model_use:
        cost = "unknown" if u.cost_usd is None else f"{u.cost_usd:.4f}"
        t.add_row(u.agent, str(u.calls), f"{u.input_tokens}/{u.output_tokens}", cost, str(u.patched),
                  str(u.rejected), str(u.reverted))
    return t
