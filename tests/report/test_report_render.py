"""Markdown and json snapshots of the hand-built run, and the terminal summary."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console

from porter.report import build_report, render_console, render_json, render_markdown
from porter.state import PortState


def test_markdown_snapshot(port_state, build_kwargs, snapshot):
    snapshot("demo.md", render_markdown(build_report(port_state, **build_kwargs)))


def test_json_snapshot(port_state, build_kwargs, snapshot):
    snapshot("demo.json", render_json(build_report(port_state, **build_kwargs)))


def test_markdown_is_deterministic(port_state, build_kwargs):
    shuffled = port_state.model_copy(update={"findings": port_state.findings[::-1], "files": port_state.files[::-1],
                                             "units": dict(reversed(port_state.units.items()))})
    assert render_markdown(build_report(shuffled, **build_kwargs)) == render_markdown(
        build_report(port_state, **build_kwargs))


def test_markdown_puts_not_verified_before_changes(port_state, build_kwargs):
    md = render_markdown(build_report(port_state, **build_kwargs))
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## Not verified", "## Units", "## Changes", "## Hazards", "## Rules",
                        "## Kernel resources", "## Verifier attempts"]
    assert "- `ext/fused.cu`: needs torch/extension.h: torch is not installed" in md
    assert "- nvcc: missing: not on PATH, set PORTER_NVCC" in md


def test_markdown_hazards_name_rule_and_place(port_state, build_kwargs):
    md = render_markdown(build_report(port_state, **build_kwargs))
    assert "- **error** `WAVE002` at `kernels/reduce.cu:14:9` (open): ballot result stored in 32 bits" in md
    # fixed renames are counted, not listed one by one
    assert "- info, fixed: `HIP001` ×2" in md
    assert "cudaMalloc -> hipMalloc" not in md


def test_markdown_escapes_table_cells(port_state, build_kwargs):
    md = render_markdown(build_report(port_state, **build_kwargs))
    tables = re.findall(r"(?:^\|.*\n)+", md, re.M)
    assert len(tables) == 7
    for table in tables:
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in table.splitlines()}
        assert len(widths) == 1, table  # an unescaped pipe in a cell would add a column
    assert "`add.s32` \\| not a gfx950 instruction; budget spent (2 of 2) |" in md
    assert "inline PTX `add.s32` | no AMDGPU form" in md  # outside a table a pipe stays as written


def test_markdown_of_an_empty_run(build_kwargs):
    md = render_markdown(build_report(PortState(run_id="r0", source="/s", output="/o"), **build_kwargs))
    assert "No unit to verify." in md and "Every unit went through" not in md
    assert "No translation unit to compile." in md
    assert "No rule found anything." in md
    assert "## Kernel resources" not in md
    assert "**Result:** passes (exit 0)." in md


def test_json_has_schema_version_first_and_sorted_keys(port_state, build_kwargs):
    text = render_json(build_report(port_state, **build_kwargs))
    data = json.loads(text)
    keys = list(data)
    assert keys[0] == "schema_version" and keys[1:] == sorted(keys[1:])
    assert list(data["summary"]) == sorted(data["summary"])
    assert text.startswith('{\n  "schema_version": 1,\n')


def test_console_summary(port_state, build_kwargs):
    report = build_report(port_state, **build_kwargs)
    buf = io.StringIO()
    render_console(report, Console(file=buf, width=160, color_system=None))
    out = buf.getvalue()
    for text in ("Summary", "units failed", "Not verified", "ext/fused.cu", "toolchain nvcc: missing: not on PATH",
                 "Open hazards", "PTX001", "kernels/bad.cu:7:3", "/out/demo/porter-report.md",
                 "/out/demo/porter-report.sarif", "needs a person (exit 1): 1 unit failed to compile"):
        assert text in out, text
    # markup characters in messages are printed, not interpreted
    assert "inline PTX `add.s32` | no AMDGPU form" in out
