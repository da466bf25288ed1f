"""The report node's output: porter-report.md, .json and .sarif at the top of the output tree.

`build_report` (model.py) derives every count from the final `PortState`; the renderers
(markdown.py, json.py, sarif.py, console.py) only format a `Report`. The CLI calls
`write_reports`, then `render_console`, and exits with `report.exit_code`.
"""

from __future__ import annotations

from pathlib import Path

from porter.report.console import render_console
from porter.report.json import render_json
from porter.report.markdown import render_markdown
from porter.report.model import REPORT_FILES, Report, build_report
from porter.report.sarif import render_sarif
from porter.state import PortState

__all__ = ["REPORT_FILES", "Report", "build_report", "render_console", "render_json", "render_markdown",
           "render_sarif", "write_reports"]

_RENDERERS = {"markdown": render_markdown, "json": render_json, "sarif": render_sarif}


def write_reports(state: PortState, out_dir: Path, **build_kwargs) -> Report:
    """Build the report and write the three files into `out_dir` (UTF-8, LF line ends).

    `build_kwargs` are `build_report`'s keywords (header_set, engine, toolchains, catalog);
    an unknown one is a TypeError there, not silently dropped.
    """
    report = build_report(state, **build_kwargs)
    out_dir.mkdir(parents=True, exist_ok=True)
    for kind, name in REPORT_FILES.items():
        (out_dir / name).write_text(_RENDERERS[kind](report), encoding="utf-8", newline="\n")
    return report
