"""porter-report.md: the Report as a page a person reads after a port (or in a PR comment).

What was not verified comes right after the summary, before any list of what went well.
Everything is taken in the Report's order (sorted at build time) and no clock is read, so the
output is a pure function of the Report and is snapshot-tested (fixtures/reports/*.snap).
"""

from __future__ import annotations

import re
from collections import Counter

from porter.report.model import Report
from porter.state import Finding, PerfEstimate, Severity

_TICKS = re.compile(r"`+")


def render_markdown(report: Report) -> str:
    sections = [_header(report), _summary(report), _incomplete(report), _not_verified(report), _units(report), _changes(report),
                _hazards(report), _rules(report), _kernels(report), _controls(report), _checks(report), _estimates(report),
                _attempts(report),
                _model(report)]
    return "\n\n".join(s for s in sections if s) + "\n"


def _code(text: str) -> str:
    """An inline code span that survives backticks in the text."""
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    # GFM splits table rows on every unescaped pipe, even inside code spans.
    return " ".join(text.split()).replace("|", "\\|")


def _table(head: list[str], rows: list[list[str]], right: int = 0) -> str:
    """A GFM table; the last `right` columns are numbers, aligned right."""
    align = ["---"] * (len(head) - right) + ["---:"] * right
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _header(r: Report) -> str:
    o = r.options
    rows = [["source", _code(r.source)], ["output", _code(r.output)], ["target", o.arch],
            ["porter", r.porter_version], ["translation tables", r.engine], ["HIP headers", r.header_set]]
    rows += [[name, version] for name, version in r.toolchains.items()]
    rows.append(["options", f"launch={o.launch}, max_iterations={o.max_iterations}, "
                            f"verify={'yes' if o.verify else 'no'}, force={'yes' if o.force else 'no'}"])
    if o.model.enabled:
        m = o.model
        budget = ", ".join(f"{name} {v}" for name, v in (("calls", m.max_calls), ("tokens", m.max_tokens),
                                                         ("USD", m.max_usd)) if v is not None) or "none"
        source = f"replay of {_code(m.replay)}" if m.replay else _code(m.spec)
        rows.append(["model", f"{source}; budget: {budget}" + (f"; recorded to {_code(m.record)}" if m.record else "")])
    verdict = verdict_text(r)
    return f"# porter report {_code(r.run_id)}\n\n{_table(['', ''], rows)}\n\n**Result:** {verdict}."


def verdict_text(r: Report) -> str:
    if r.exit_code == 0:
        return "passes (exit 0)"
    if r.exit_code == 3:
        return f"porter failed (exit 3): {', '.join(r.blocking)}"
    return f"needs a person (exit 1): {', '.join(r.blocking)}"


def _incomplete(r: Report) -> str:
    """porter's own failures and the source files it did not port: first, since the port is not whole."""
    lines = []
    if r.incomplete:
        lines += ["## Porter failed", "",
                  "> **porter raised an exception on these units: their port is incomplete. This is a bug in "
                  "porter; the rest of the run went on.**", ""]
        lines += [f"- {_code(i.unit) if i.unit else 'the run'}: {i.step}: {i.error} (at {_code(i.at)})"
                  for i in r.incomplete]
    if r.not_ported:
        lines += ["", "## Not ported"] if lines else ["## Not ported"]
        lines += ["", *(f"- {_code(n.path)} ({n.kind}): {n.reason}" for n in r.not_ported)]
    return "\n".join(lines)


def _summary(r: Report) -> str:
    s = r.summary
    kinds = ", ".join(f"{k} {n}" for k, n in s.files_by_kind.items())
    rows = [["files", f"{s.files} ({kinds})" if kinds else "0"],
            ["files changed", str(s.files_changed)], ["files created", str(s.files_created)],
            ["files copied unchanged with a note", str(len(r.copied))], ["kernels", str(s.kernels)],
            ["units compiled", str(s.units_compiled)], ["units failed", str(s.units_failed)],
            ["units not checked", str(s.units_not_checked)],
            ["findings", ", ".join(f"{n} {sev}" for sev, n in s.hazards.items())],
            ["open hazards", f"{s.open_hazards} ({s.open_errors} error, {s.open_warnings} warning)"]]
    if s.units_incomplete:
        rows.append(["units porter failed on", str(s.units_incomplete)])
    if s.files_not_ported:
        rows.append(["source files not ported", str(s.files_not_ported)])
    return "## Summary\n\n" + _table(["", "count"], rows, right=1)


def _not_verified(r: Report) -> str:
    lines = ["## Not verified"]
    unchecked = [n for n in r.not_verified if n.level == "not-checked"]
    compiled = [n for n in r.not_verified if n.level == "compiled-only"]
    if unchecked:
        warning = "> **These units were not compiled for the target: nothing in this report vouches for them.**"
        lines += ["", warning, ""]
        lines += [f"- {_code(n.unit)}: {n.reason}" for n in unchecked]
    if compiled:
        lines += ["", f"Compiled only ({len(compiled)}): they compile for {r.options.arch}, but no check ran their "
                      "numbers against the original (`porter verify OUT --executor hip-on-cuda` runs the project's "
                      "own checks).", ""]
        lines += [f"- {_code(n.unit)}" for n in compiled]
    if r.numerics:
        lines += ["", "Numerics run against the original:", ""]
        lines += [f"- {_code(n.unit)} ({n.executor}): {', '.join(n.checks)}" for n in r.numerics]
    if not r.units:
        lines += ["", "No unit to verify."]
    elif not r.not_verified:
        lines += ["", "Every compiled unit had a check that ran its numbers against the original and passed."]
    missing = [f"- {name}: {v}" for name, v in r.toolchains.items() if v.startswith("missing")]
    if missing:
        lines += ["", "Toolchains missing:", "", *missing]
    if r.notes:
        lines += ["", "Notes:", "", *(f"- {n}" for n in r.notes)]
    return "\n".join(lines)


def _units(r: Report) -> str:
    if not r.units:
        return "## Units\n\nNo translation unit to compile."
    rows = [[_code(u.unit), u.verdict, u.toolchain, u.failure_class, u.error or u.reason] for u in r.units]
    return "## Units\n\n" + _table(["unit", "verdict", "toolchain", "failure class", "detail"], rows)


def _changes(r: Report) -> str:
    lines = ["## Changes"]
    if r.changes:
        rows = [[_code(c.path) + (" (new)" if c.created else "") + (f" ({c.flag})" if c.flag else ""), s.agent,
                 s.origin, ", ".join(s.rules), s.reason, str(s.edits)] for c in r.changes for s in c.steps]
        lines += ["", _table(["file", "agent", "origin", "rules", "reason", "edits"], rows, right=1)]
    else:
        lines += ["", "No file was changed."]
    if r.copied:
        lines += ["", "Copied unchanged:", "", *(f"- {_code(c.path)} ({c.kind}): {c.note}" for c in r.copied)]
    return "\n".join(lines)


def _hazards(r: Report) -> str:
    """Every error and warning, and every unfixed info; fixed info (renames) only as counts."""
    by_file: dict[str, list[Finding]] = {}
    for f in r.findings:
        by_file.setdefault(f.location.path, []).append(f)
    if not by_file:
        return "## Hazards\n\nNo rule found anything."
    out = ["## Hazards"]
    for path, found in by_file.items():
        out += ["", f"### {_code(path)}", ""]
        for f in found:
            if f.severity is Severity.info and f.fixed:
                continue
            # an unfixed info is a fact, not an open hazard: it gets no status
            status = "" if f.severity is Severity.info else " (fixed)" if f.fixed else " (open)"
            out.append(f"- **{f.severity}** {_code(f.rule)} at {_code(str(f.location))}{status}: {f.message}")
            if f.detail and not f.fixed:
                out += _fenced(f.detail, indent="  ")
            elif f.snippet:
                out.append(f"  {_code(f.snippet)}")
        renames = Counter(f.rule for f in found if f.severity is Severity.info and f.fixed)
        if renames:
            out.append("- info, fixed: " + ", ".join(f"{_code(rule)} ×{n}" for rule, n in sorted(renames.items())))
    return "\n".join(out)


def _fenced(text: str, indent: str) -> list[str]:
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [indent + fence, *(indent + line if line else "" for line in text.splitlines()), indent + fence]


def _rules(r: Report) -> str:
    if not r.rules:
        return ""
    rows = [[_code(c.rule), c.title, str(c.severity), c.agent, c.reason, str(c.found), str(c.fixed), str(c.left)]
            for c in r.rules]
    head = ["rule", "title", "severity", "agent", "why left", "found", "fixed", "left for a person"]
    return "## Rules\n\n" + _table(head, rows, right=3)


def _kernels(r: Report) -> str:
    if not r.kernels:
        return ""
    rows = [[_code(k.unit), _code(k.kernel), k.arch, str(k.vgprs), str(k.agprs), str(k.sgprs), str(k.lds_bytes),
             str(k.scratch_bytes), f"{k.vgpr_spill}/{k.sgpr_spill}", str(k.occupancy), str(k.mfma_count)]
            for k in r.kernels]
    head = ["unit", "kernel", "arch", "VGPRs", "AGPRs", "SGPRs", "LDS bytes", "scratch/lane", "spills v/s",
            "waves/SIMD", "v_mfma"]
    return ("## Kernel resources\n\nAs the compiler reports them: clang's `-Rpass-analysis=kernel-resource-usage` for "
            "HIP units, the gfx950 assembly and metadata of Triton's ahead-of-time compile for Triton kernels.\n\n"
            + _table(head, rows, right=8))


def _controls(r: Report) -> str:
    if not r.controls:
        return ""
    rows = [[_code(unit), _cell(text)] for unit, text in r.controls]
    return ("## NVIDIA control\n\nThe original Triton kernels compiled ahead of time for NVIDIA (PTX), next to the "
            "gfx950 figures above.\n\n" + _table(["unit", "kernel: registers, spills, shared, matrix instructions"], rows))


def _checks(r: Report) -> str:
    if not r.checks:
        return ""

    def num(x: float | None, fmt: str = ".3g") -> str:
        return "-" if x is None else format(x, fmt)

    rows = [[_code(unit), _code(c.kernel), c.executor, c.status, num(c.max_abs_error), num(c.max_rel_error),
             num(c.port_ms, ".4f"), num(c.baseline_ms, ".4f"), c.timing or "not measured on the target"]
            for unit, c in r.checks]
    head = ["unit", "kernel", "executor", "numerics", "max abs err", "max rel err", "port ms", "hipify ms", "vs hipify"]
    return ("## Numerics and timing\n\nEach kernel spec run on its executor, its outputs against the original's: "
            "hip-on-cuda (AMD wave semantics emulated on NVIDIA), rocm, or Triton's interpreter on the CPU. "
            "Timings count only on the target (rocm).\n\n"
            + _table(head, rows))


def estimate_text(e: PerfEstimate) -> str:
    """One estimate as a phrase: `estimated (perfmodel, gfx950): 0.82x the hipify time (faster)`."""
    if e.verdict in ("faster", "slower", "equal"):
        return f"{e.label}: {e.ratio:.2f}x the hipify time ({e.verdict})"
    if e.verdict == "baseline-does-not-fit":
        return f"{e.label}: the hipify baseline does not fit"
    return f"{e.label}: {e.verdict}"


def _estimates(r: Report) -> str:
    if not r.estimates:
        return ""

    def us(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    rows = [[_code(unit), _code(e.kernel), f"{e.shape[0]}x{e.shape[1]}x{e.shape[2]} {e.dtype}",
             e.port_config or "-", us(e.port_us), e.baseline_config or "-", us(e.baseline_us),
             estimate_text(e), "; ".join(x for x in (e.shape_from, e.reason) if x)]
            for unit, e in r.estimates]
    head = ["unit", "kernel", "M x N x K", "port config", "port us", "hipify config", "hipify us", "verdict", "basis"]
    return ("## Estimated performance\n\nPredicted by porter's perfmodel, not measured: the port's launch config "
            "(the best of an autotune list) against the original's run unchanged on the device (the direct "
            "hipify). A ratio below 1 is faster. Estimates never fail a unit.\n\n"
            + _table(head, rows))


def _attempts(r: Report) -> str:
    if not r.attempts:
        return ""
    rows = [[str(a.iteration), _code(a.unit), a.failure_class, a.routed_to, a.message] for a in r.attempts]
    return "## Verifier attempts\n\n" + _table(["iteration", "unit", "failure class", "routed to", "message"], rows)


def _usd(cost: float | None) -> str:
    return "unknown" if cost is None else f"{cost:.4f}"


def _model(r: Report) -> str:
    """Every model call: per agent what it cost, then each call and what became of its answer."""
    if not r.model_calls:
        return ""
    totals = [[u.agent, str(u.calls), str(u.input_tokens), str(u.output_tokens), _usd(u.cost_usd), str(u.patched),
               str(u.rejected), str(u.reverted)] for u in r.model_use]
    head = ["agent", "calls", "input tokens", "output tokens", "cost USD", "patched", "edits rejected", "reverted"]
    rows = []
    for e in r.model_calls:
        c = e.call
        outcome = f"{c.outcome}, reverted" if e.reverted else c.outcome
        rows.append([str(c.iteration), c.agent, _code(c.task), _code(c.unit), str(c.round), outcome,
                     f"{c.input_tokens}/{c.output_tokens}", _usd(c.cost_usd), c.detail])
    calls = _table(["iteration", "agent", "task", "unit", "answer", "outcome", "tokens in/out", "cost USD", "detail"],
                   rows)
    return ("## Model\n\nEvery call the agents made to the model. A patched answer landed like a rule's and was "
            "verified; one that left its unit no better was reverted.\n\n"
            + _table(head, totals, right=7) + "\n\n" + calls)
