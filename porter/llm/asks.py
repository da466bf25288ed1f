"""What the agents ask the model, built from the run's state (DESIGN.md: rules first, model for the rest).

Two occasions, and no other:
- `hazards`: on an agent's first pass, the hazards its rules found and could not fix
  (translator: anything; microarch: inline PTX and wavefront hazards), one conversation per
  file and task. A hazard whose rule no longer fires on the patched file is marked fixed.
- `failures`: when the verifier sends units back to the agent, one conversation per unit with
  the verifier's evidence: the compiler's messages, the mismatching outputs, or the timings.
  A mismatch is first answered by reverting the unit's rule patch (the verifier did that);
  the model is asked only once no rule patch was left to blame.
Without a model, or with its budget spent, both record what a person must take over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter import rules as rule_catalog
from porter.llm.edits import EditRejected
from porter.llm.session import Ask, Model
from porter.state import AgentOutput, Attempt, FileKind, FileRecord, Finding, ModelCall, Patch, PortState, Severity, UnitResult
from porter.verify.failures import first_error, route_of
from porter.workspace import Workspace

# The prompt for each open hazard's rule family, by agent; families not named are left for a person.
HAZARD_TASKS: dict[str, dict[str, str]] = {
    "translator": {"HIP": "translator/translate", "BLD": "translator/translate", "TRI": "translator/translate"},
    "microarch": {"PTX": "microarch/inline_ptx", "WAVE": "microarch/wave64"},
}
FAILURE_TASKS = {"mismatch": "repair/mismatch", "slower": "microarch/faster"}  # other classes: compile errors
COMPILER_LINES = 40  # of the compiler's output shown to the model: the first error and its context
_LANG = {FileKind.cuda: "cuda", FileKind.cpp: "cpp", FileKind.python: "python", FileKind.triton: "python",
         FileKind.cmake: "cmake", FileKind.makefile: "makefile", FileKind.setup_py: "python"}


@dataclass
class ModelWork:
    """What an agent's model pass adds to its output."""

    findings: list[Finding] = field(default_factory=list)  # hazards now fixed, replacing the open ones
    patches: list[Patch] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def output(self, findings: list[Finding] = (), patches: list[Patch] = (), attempts: list[Attempt] = (),
               notes: list[str] = ()) -> AgentOutput:
        """The agent's output: its rules' results, then the model's (whose findings replace theirs)."""
        return AgentOutput(findings=(*findings, *self.findings), patches=(*patches, *self.patches),
                           attempts=(*attempts, *self.attempts), model_calls=tuple(self.calls),
                           notes=(*notes, *self.notes))


class Overlay:
    """The output tree as the agent sees it before its patches land: disk, then the patches so far."""

    def __init__(self, ws: Workspace, patches: list[Patch]) -> None:
        self.ws = ws
        self._data: dict[str, bytes | None] = {}
        for p in patches:
            self.add(p)

    def read(self, path: str) -> bytes | None:
        if path not in self._data:
            full = (self.ws.root / path).resolve()
            if self.ws.root.resolve() not in full.parents:
                raise EditRejected(f"{path!r}: outside the output tree")
            self._data[path] = full.read_bytes() if full.is_file() else None
        return self._data[path]

    def add(self, patch: Patch) -> None:
        self._data[patch.path] = patch.apply_to(self.read(patch.path) or b"")


def hazards(state: PortState, ws: Workspace, agent: str, model: Model | None, findings: list[Finding],
            patches: list[Patch], stages: tuple[tuple[str, ...], ...] = ()) -> ModelWork:
    """Ask about the open hazards of `agent`'s first pass, after its rule `patches`."""
    work = ModelWork()
    tasks = HAZARD_TASKS.get(agent, {})
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        family = rule_catalog.RULE_ID.match(f.rule)
        task = tasks.get(family.group(1)) if family else None
        if task and not f.fixed and f.severity in (Severity.error, Severity.warning):
            groups.setdefault((f.location.path, task), []).append(f)
    if model is None or not groups:
        return work
    overlay = Overlay(ws, patches)
    records = {r.path: r for r in state.files}
    for (path, task), found in sorted(groups.items()):
        if (why := model.exhausted([*state.model_calls, *work.calls])) is not None:
            work.notes.append(f"model budget spent ({why}): {agent} hazards in {path} and later files "
                              "left for a person")
            break
        ask = Ask(agent=agent, task=task, unit=path, iteration=state.iteration, target=state.options.arch,
                  variables=_context(state, overlay, [path], found))
        proposal = model.ask(ask, [*state.model_calls, *work.calls], overlay.read)
        work.calls += proposal.calls
        for p in proposal.patches:
            overlay.add(p)
        work.patches += proposal.patches
        if proposal.patches:
            still = _still_found(state, overlay, agent, records[path], stages)
            work.findings += [f.model_copy(update={"fixed": True, "fixable": True})
                              for f in found if f.rule not in still]
    return work


def _still_found(state: PortState, overlay: Overlay, agent: str, record: FileRecord,
                 stages: tuple[tuple[str, ...], ...]) -> set[str]:
    """The rules of `agent` that still fire on the file as the overlay has it."""
    found, _ = rule_catalog.run_on_files(agent, [record], lambda p: overlay.read(p) or b"",
                                         rule_catalog.RuleContext(state.options), stages, applied=False)
    return {f.rule for f in found}


def failures(state: PortState, ws: Workspace, agent: str, model: Model | None, no_rule: str,
             patches: list[Patch] = ()) -> ModelWork:
    """Ask about each unit the verifier routed to `agent`; without a model, hand them back.

    `no_rule` is the agent's message for a unit it has no rule for, when no model is asked;
    `patches` are what the agent's rules propose this round, which the model's edits follow.
    """
    work = ModelWork()
    overlay = Overlay(ws, list(patches))
    for unit in state.pending:
        result = state.units.get(unit)
        if result is None or route_of(result.failure_class) != agent:
            continue
        handback = Attempt(iteration=state.iteration, unit=unit, failure_class=result.failure_class,
                           routed_to=agent, message=no_rule)
        if model is None:
            work.attempts.append(handback)
            continue
        if result.failure_class == "mismatch" and _reverted_rule_patch(state, unit):
            work.attempts.append(handback.model_copy(
                update={"message": "re-verifying after the revert of a rule patch"}))
            continue
        if (why := model.exhausted([*state.model_calls, *work.calls])) is not None:
            work.notes.append(f"model budget spent ({why}): {unit} left for a person")
            work.attempts.append(handback.model_copy(update={"message": f"{no_rule}; model budget spent"}))
            continue
        task = FAILURE_TASKS.get(result.failure_class, "repair/compile_error")
        ask = Ask(agent=agent, task=task, unit=unit, iteration=state.iteration, target=state.options.arch,
                  variables={**_context(state, overlay, _files_of(result, unit, overlay), _open_in(state, unit)),
                             "evidence": _evidence(state, ws, result), "history": _history(state, unit)})
        proposal = model.ask(ask, [*state.model_calls, *work.calls], overlay.read)
        work.calls += proposal.calls
        for p in proposal.patches:
            overlay.add(p)
        work.patches += proposal.patches
        said = f"model patch ({task}): {proposal.patches[0].reason}" if proposal.patches else \
            f"model ({task}): {proposal.stopped}; needs a person"
        work.attempts.append(handback.model_copy(update={"message": said}))
    return work


def _reverted_rule_patch(state: PortState, unit: str) -> bool:
    """Whether the verifier, this round, answered the unit's mismatch by reverting a rule patch."""
    return any(a.unit == unit and a.iteration == state.iteration and a.reverted == "rule" for a in state.attempts)


def _open_in(state: PortState, unit: str) -> list[Finding]:
    return [f for f in state.findings if f.location.path == unit and not f.fixed
            and f.severity in (Severity.error, Severity.warning)]


def _files_of(result: UnitResult, unit: str, overlay: Overlay) -> list[str]:
    """The unit, and the file its first compile error is in when that is another file of the tree."""
    files = [unit]
    error = first_error(result.port_build.stderr) if result.port_build else None
    if error is not None:
        where = _relative(error.file, overlay.ws, "")
        if where != unit and not where.startswith("/") and overlay.read(where) is not None:
            files.append(where)
    return files


def unit_context(state: PortState, ws: Workspace, unit: str) -> dict[str, object]:
    """The shared task variables for `unit` as the output tree stands, with its open hazards
    (a session's /ask puts a person's question to the model with them)."""
    return _context(state, Overlay(ws, []), [unit], _open_in(state, unit))


def _context(state: PortState, overlay: Overlay, paths: list[str], found: list[Finding]) -> dict[str, object]:
    """The variables every task prompt shares: the code, the hazards and their rules, the target."""
    kinds = {r.path: r.kind for r in state.files}
    files = [{"path": p, "lang": _LANG.get(kinds.get(p, FileKind.text), ""),
              "text": (overlay.read(p) or b"").decode(errors="replace")} for p in paths]
    catalog = rule_catalog.load()
    docs = []
    for rule_id in sorted({f.rule for f in found}):
        if (r := catalog.get(rule_id)) is not None:
            docs.append({"id": r.id, "title": r.title, "why": r.section("Why"), "before": r.section("Before"),
                         "after": r.section("After")})
    hazards_ = [{"rule": f.rule, "severity": str(f.severity), "location": str(f.location), "message": f.message,
                 "snippet": f.snippet} for f in found]
    return {"unit": paths[0], "files": files, "hazards": hazards_, "rules": docs,
            "hardware": hardware_facts(state, paths[0])}


def hardware_facts(state: PortState, unit: str) -> list[str]:
    """The target's device data (porter.hardware, each value with its source), then what the
    compiler reported for the unit's kernels."""
    from porter import hardware

    try:
        device = hardware.get(state.options.arch)
    except KeyError as e:
        facts = [str(e.args[0])]
    else:
        facts = [f"{device.name} ({device.arch})"]
        facts += [f"{name}: {value} ({source})" for name, value, source in device.rows()]
    result = state.units.get(unit)
    for k in result.kernels if result else ():
        facts.append(f"kernel {k.kernel} as compiled for {k.arch}: {k.vgprs} VGPRs, {k.agprs} AGPRs, {k.sgprs} SGPRs, "
                     f"{k.lds_bytes} B LDS, {k.scratch_bytes} B scratch, occupancy {k.occupancy} waves/SIMD")
    return facts


def _evidence(state: PortState, ws: Workspace, result: UnitResult) -> list[str]:
    """The verifier's evidence, as lines: compiler output, mismatches, or timings."""
    if result.failure_class in ("mismatch", "slower"):
        lines = []
        for c in result.checks:
            where = f" worst at index {list(c.worst_index)}" if c.worst_index is not None else ""
            lines.append(f"kernel {c.kernel} on {c.executor}: {c.status}; max abs error {c.max_abs_error}, "
                         f"max rel error {c.max_rel_error}{where}; port {c.port_ms} ms, direct-hipify baseline "
                         f"{c.baseline_ms} ms ({c.timing or 'not timed on the target'}); {c.reason}".rstrip("; "))
        return lines or [result.reason]
    if result.port_build is None:
        return [result.reason]
    text = _relative(result.port_build.stderr, ws, state.source)
    return [line for line in text.splitlines() if line.strip()][:COMPILER_LINES]


def _relative(text: str, ws: Workspace, source: str) -> str:
    """Text with the output and source trees' absolute paths dropped: prompts, and so cassettes,
    must not depend on where a run happened."""
    for root in {str(ws.root.resolve()), str(ws.root), source} - {""}:
        text = text.replace(root.rstrip("/") + "/", "")
    return text


def _history(state: PortState, unit: str) -> list[str]:
    """The unit's earlier model answers and the verifier's verdicts on them, oldest first."""
    calls = [(c.iteration, 0, f"iteration {c.iteration}: {c.agent} asked {c.task}, answer {c.round}: "
                              f"{c.outcome}: {c.detail}") for c in state.model_calls if c.unit == unit]
    verdicts = [(a.iteration, 1, f"iteration {a.iteration}: {a.failure_class}, {a.routed_to}: {a.message}")
                for a in state.attempts if a.unit == unit]
    return [text for _, _, text in sorted(calls + verdicts, key=lambda t: t[:2])]
