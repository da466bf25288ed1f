"""The Report: what a finished run found, changed and proved, as one frozen pydantic model.

`build_report` is the last node's only computation: it reads a `PortState` and the facts the
state does not hold (the HIP header set the verifier compiled against, the translation tables,
the toolchain versions) and derives every count once, so the markdown, json, sarif and console
renderers only format. Lists are sorted here, which makes every rendering deterministic.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from porter import __version__
from porter import rules as rule_catalog
from porter.rules import INPUT_LIMIT, Rule
from porter.state import (
    INTERNAL_ERROR,
    SCHEMA_VERSION,
    Attempt,
    FileKind,
    Finding,
    KernelCheck,
    KernelResources,
    ModelCall,
    PerfEstimate,
    PortOptions,
    PortState,
    Severity,
    UnitResult,
    UnitVerdict,
)

REPORT_FILES = {"markdown": "porter-report.md", "json": "porter-report.json", "sarif": "porter-report.sarif"}
SEVERITY_ORDER = {Severity.error: 0, Severity.warning: 1, Severity.info: 2}
_ERROR_LINE = re.compile(r"\berror\b", re.I)
TOKEN_BY_TOKEN = "translated token by token: tree-sitter could not parse all of it"
INPUT_LIMIT_TITLE = "input past a limit porter's rules can walk: the rules named were not run on the file"
INTERNAL_TITLE = "porter failed: an exception in a rule, the parser or a step of porter (a bug in porter)"


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def is_open(finding: Finding) -> bool:
    """An open hazard: not fixed, and severe enough that a person must look (info never is)."""
    return not finding.fixed and finding.severity in (Severity.error, Severity.warning)


class Summary(_Part):
    files: int
    files_by_kind: dict[str, int]
    files_changed: int  # existing files a patch rewrote
    files_created: int  # new files (compat headers, wrappers)
    kernels: int
    units_compiled: int
    units_failed: int
    units_not_checked: int
    hazards: dict[str, int]  # every finding, by severity
    open_hazards: int  # not fixed, severity error or warning
    open_errors: int
    open_warnings: int
    units_incomplete: int = 0  # units (or the run, counted once) porter failed on: exit 3
    files_not_ported: int = 0  # source files copied unported: exit 1


class ChangeStep(_Part):
    """One landed patch, as the report tells it."""

    agent: str
    origin: str
    rules: list[str]
    edits: int
    reason: str


class FileChange(_Part):
    path: str
    created: bool
    flag: str = ""  # e.g. "translated token by token": tree-sitter could not parse all of it
    rules: list[str]
    edits: int
    steps: list[ChangeStep]


class CopiedFile(_Part):
    """A file copied to the output tree as it was, and why (binary, not UTF-8, not parsed)."""

    path: str
    kind: FileKind
    note: str


class RuleCount(_Part):
    rule: str
    title: str
    why: str
    agent: str
    severity: Severity
    fix: str
    found: int
    fixed: int
    left: int  # found - fixed: for a person
    reason: str  # why some were left: "no fixer", "fix not applied", or both with counts


class UnitRecord(_Part):
    unit: str
    verdict: UnitVerdict
    toolchain: str
    failure_class: str
    reason: str
    error: str  # first compiler error line of the port's build


class Incomplete(_Part):
    """A unit porter failed on: an exception in porter's own code (a rule, the parser, a node).

    `unit` is "" when the failure belongs to the whole run (a graph node raised).
    """

    unit: str
    step: str  # the rule id or the node that raised
    error: str  # "ExceptionType: message"
    at: str  # the innermost frame of porter's code


class NotPorted(_Part):
    """A source file porter did not port (not readable as text, or not parsable at all), and why."""

    path: str
    kind: FileKind
    reason: str


class NotVerified(_Part):
    """A unit nothing vouches for numerically: not checked at all, or compiled only."""

    unit: str
    reason: str
    level: Literal["not-checked", "compiled-only"] = "not-checked"


class NumericsRun(_Part):
    """A unit whose numbers were checked against the original: by what, on which executor."""

    unit: str
    executor: str
    checks: list[str]


class ModelExchange(_Part):
    """One model call, and whether the verifier later reverted the patch it produced."""

    call: ModelCall
    reverted: bool = False


class ModelUse(_Part):
    """What one agent asked of the model, and what it cost."""

    agent: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when a call's model has no known price
    patched: int  # answers whose patch went to the workspace
    rejected: int  # answers whose edits did not apply (sent back with the reason)
    reverted: int  # patches the verifier undid: they left their unit no better


class Report(_Part):
    schema_version: int
    porter_version: str
    run_id: str
    source: str
    output: str
    options: PortOptions
    header_set: str
    engine: str
    toolchains: dict[str, str]
    summary: Summary
    changes: list[FileChange]
    copied: list[CopiedFile]
    rules: list[RuleCount]
    findings: list[Finding]
    units: list[UnitRecord]
    kernels: list[KernelResources]
    checks: list[tuple[str, KernelCheck]] = []  # (unit, check): numerics and timing from an executor
    controls: list[tuple[str, str]] = []  # (unit, "kernel: summary"): the original compiled for NVIDIA
    estimates: list[tuple[str, PerfEstimate]] = []  # (unit, estimate): predicted by the perfmodel, not measured
    attempts: list[Attempt]
    not_verified: list[NotVerified]
    incomplete: list[Incomplete] = []  # porter's own failures, by unit: the run exits 3
    not_ported: list[NotPorted] = []  # source files copied as they were: the run exits 1
    numerics: list[NumericsRun] = []  # units with a check that ran and passed against the original
    notes: list[str]
    model_calls: list[ModelExchange] = []  # every call, in the order made
    model_use: list[ModelUse] = []  # per agent, then "total" when any agent asked

    @property
    def open_findings(self) -> list[Finding]:
        return [f for f in self.findings if is_open(f)]

    @property
    def blocking(self) -> list[str]:
        """Why the run fails CI, one phrase per cause; empty when it passes."""
        s = self.summary
        causes = [(s.units_incomplete, "unit porter failed on", "units porter failed on"),
                  (s.files_not_ported, "source file not ported", "source files not ported"),
                  (s.units_failed, "unit failed to compile", "units failed to compile"),
                  (s.units_not_checked, "unit not checked", "units not checked"),
                  (s.open_errors, "open error", "open errors"),
                  (s.open_warnings, "open warning", "open warnings")]
        return [f"{n} {one if n == 1 else many}" for n, one, many in causes if n]

    @property
    def exit_code(self) -> int:
        """3 when porter failed on a unit; else 0 when every unit compiled (or there was none),
        every source file was ported and no error/warning hazard is open; else 1."""
        if self.summary.units_incomplete:
            return 3
        return 1 if self.blocking else 0


def build_report(state: PortState, *, header_set: str, engine: str, toolchains: dict[str, str],
                 catalog: Mapping[str, Rule] | None = None) -> Report:
    """Derive the report of a finished run. `catalog` defaults to the registered rules."""
    catalog = rule_catalog.load() if catalog is None else catalog
    findings = sorted(state.findings, key=lambda f: (f.location.path, f.location.line, f.location.column,
                                                     SEVERITY_ORDER[f.severity], f.rule))
    units = sorted(state.units.values(), key=lambda u: u.unit)
    changes = _changes(state)
    verdicts = Counter(u.verdict for u in units)
    severities = Counter(f.severity for f in findings)
    open_sev = Counter(f.severity for f in findings if is_open(f))
    kinds = Counter(f.kind for f in state.files)
    incomplete = _incomplete(findings)
    not_ported = [NotPorted(path=f.path, kind=f.kind, reason=f.note or "not ported")
                  for f in sorted(state.files, key=lambda f: f.path) if f.unported]
    summary = Summary(
        files=len(state.files),
        files_by_kind={k.value: kinds[k] for k in FileKind if kinds[k]},
        files_changed=sum(not c.created for c in changes),
        files_created=sum(c.created for c in changes),
        kernels=len(state.kernels),
        units_compiled=verdicts["compiled"], units_failed=verdicts["failed"], units_not_checked=verdicts["not-checked"],
        hazards={s.value: severities[s] for s in Severity},
        open_hazards=open_sev.total(), open_errors=open_sev[Severity.error], open_warnings=open_sev[Severity.warning],
        units_incomplete=len({i.unit for i in incomplete}), files_not_ported=len(not_ported),
    )
    return Report(
        schema_version=SCHEMA_VERSION, porter_version=__version__, run_id=state.run_id,
        source=state.source, output=state.output, options=state.options,
        header_set=header_set, engine=engine, toolchains=dict(sorted(toolchains.items())),
        summary=summary, changes=changes, copied=_copied(state, {c.path for c in changes}),
        rules=_rule_counts(findings, catalog), findings=findings, units=[_unit_record(u) for u in units],
        kernels=sorted((k for u in units for k in u.kernels), key=lambda k: (k.unit, k.kernel, k.arch)),
        checks=[(u.unit, c) for u in units for c in u.checks],
        controls=[(u.unit, c) for u in units for c in u.controls],
        estimates=[(u.unit, e) for u in units for e in u.estimates],
        attempts=list(state.attempts),
        not_verified=[n for u in units if (n := _not_verified(u)) is not None],
        numerics=[NumericsRun(unit=u.unit, executor=", ".join(sorted({c.executor for c in passed})),
                              checks=[c.kernel for c in passed])
                  for u in units if u.verdict == "compiled" and (passed := [c for c in u.checks if c.status == "pass"])],
        incomplete=incomplete, not_ported=not_ported,
        notes=list(state.notes),
        **_model(state),
    )


def _incomplete(findings: list[Finding]) -> list[Incomplete]:
    out = []
    for f in findings:
        if f.rule != INTERNAL_ERROR:
            continue
        step, _, rest = f.detail.partition(": ")
        error, _, at = rest.rpartition("\nat ")
        out.append(Incomplete(unit=f.location.path, step=step, error=error, at=at))
    return sorted(out, key=lambda i: (i.unit, i.step))


COMPILED_ONLY = ("compiled for the target only: no check ran its numbers against the original "
                 "(`porter verify OUT --executor hip-on-cuda` runs the project's own checks)")


def _not_verified(u: UnitResult) -> NotVerified | None:
    """Not checked (with the reason), compiled only, or None: a check ran and passed (or the unit failed,
    which the Units section reports)."""
    if u.verdict == "not-checked":
        return NotVerified(unit=u.unit, reason=u.reason or "no reason recorded")
    if u.verdict == "compiled" and not any(c.status == "pass" for c in u.checks):
        return NotVerified(unit=u.unit, reason=COMPILED_ONLY, level="compiled-only")
    return None


def _model(state: PortState) -> dict:
    """The model section: every call with its fate, and per-agent totals (agents in graph order)."""
    reverted = {(a.unit, a.iteration - 1) for a in state.attempts if a.reverted == "model"}
    exchanges = [ModelExchange(call=c, reverted=c.outcome == "patched" and (c.unit, c.iteration) in reverted)
                 for c in state.model_calls]
    order = {a: i for i, a in enumerate(rule_catalog.AGENTS)}
    agents = sorted({e.call.agent for e in exchanges}, key=lambda a: (order.get(a, len(order)), a))
    use = [_use(agent, [e for e in exchanges if e.call.agent == agent]) for agent in agents]
    if use:
        use.append(_use("total", exchanges))
    return {"model_calls": exchanges, "model_use": use}


def _use(agent: str, exchanges: list[ModelExchange]) -> ModelUse:
    calls = [e.call for e in exchanges]
    priced = [c.cost_usd for c in calls if c.outcome != "error"]
    return ModelUse(agent=agent, calls=len(calls), input_tokens=sum(c.input_tokens for c in calls),
                    output_tokens=sum(c.output_tokens for c in calls),
                    cost_usd=None if None in priced else round(sum(priced), 6),
                    patched=sum(c.outcome == "patched" for c in calls),
                    rejected=sum(c.outcome == "edit-rejected" for c in calls),
                    reverted=sum(e.reverted for e in exchanges))


def _changes(state: PortState) -> list[FileChange]:
    """Landed patches grouped by file; steps keep the order in which they landed."""
    by_path: dict[str, list[ChangeStep]] = {}
    created: set[str] = set()
    for p in state.patches:
        if p.base_hash is None:
            created.add(p.path)
        ids = sorted({e.rule for e in p.edits if e.rule} | {r for r in p.rule.split(",") if r})
        by_path.setdefault(p.path, []).append(ChangeStep(agent=p.agent, origin=p.origin, rules=ids,
                                                         edits=len(p.edits), reason=p.reason))
    flags = {f.path: TOKEN_BY_TOKEN for f in state.files if not f.parsed and f.kind in (FileKind.cuda, FileKind.cpp)}
    return [FileChange(path=path, created=path in created, rules=sorted({r for s in steps for r in s.rules}),
                       edits=sum(s.edits for s in steps), steps=steps, flag=flags.get(path, ""))
            for path, steps in sorted(by_path.items())]


def _copied(state: PortState, changed: set[str]) -> list[CopiedFile]:
    """Unchanged files that carry a reason for being copied as they were."""
    out = []
    for f in sorted(state.files, key=lambda f: f.path):
        if f.path in changed or not (f.note or not f.parsed or f.kind is FileKind.binary):
            continue
        note = f.note or ("binary" if f.kind is FileKind.binary else "not parsed")
        out.append(CopiedFile(path=f.path, kind=f.kind, note=note))
    return out


def _rule_counts(findings: list[Finding], catalog: Mapping[str, Rule]) -> list[RuleCount]:
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    out = []
    for rule_id, found in sorted(by_rule.items()):
        known = catalog.get(rule_id)
        fixed = sum(f.fixed for f in found)
        no_fixer = sum(not f.fixed and not f.fixable for f in found)
        not_applied = sum(not f.fixed and f.fixable for f in found)
        out.append(RuleCount(
            rule=rule_id,
            title=known.title if known else {INTERNAL_ERROR: INTERNAL_TITLE, INPUT_LIMIT: INPUT_LIMIT_TITLE}.get(
                rule_id, "not in this porter's rule catalog"),
            why=known.section("Why") if known else "",
            agent=known.agent if known else found[0].agent,
            severity=known.severity if known else min((f.severity for f in found), key=SEVERITY_ORDER.get),
            fix=known.fix if known else "none",
            found=len(found), fixed=fixed, left=len(found) - fixed,
            reason=_left_reason(no_fixer, not_applied),
        ))
    return out


def _left_reason(no_fixer: int, not_applied: int) -> str:
    if no_fixer and not_applied:
        return f"no fixer ({no_fixer}), fix not applied ({not_applied})"
    return "no fixer" if no_fixer else "fix not applied" if not_applied else ""


def _unit_record(u: UnitResult) -> UnitRecord:
    error = ""
    if u.verdict == "failed" and u.port_build is not None:
        lines = [line.strip() for line in u.port_build.stderr.splitlines() if line.strip()]
        error = next((line for line in lines if _ERROR_LINE.search(line)), lines[0] if lines else "")
    return UnitRecord(unit=u.unit, verdict=u.verdict, toolchain=u.port_build.toolchain if u.port_build else "",
                      failure_class=u.failure_class, reason=u.reason, error=error[:240])
