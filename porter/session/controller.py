"""The session controller: the Python API every session client drives (the REPL is one).

    with Session.start(Path("src"), Path("out"), PortOptions()) as s:
        step = s.advance()                  # run to the first decision
        while not step.finished:
            step = s.accept()               # or reject(), edit(text), accept_unit(), go_on(), stop()

Each action becomes `Command(resume={...})` for the graph (porter.session.review reads it);
the graph stops at the next `interrupt()` and `Step.pending` holds its payload, a plain dict.
Everything is checkpointed in OUT/.porter/checkpoints.sqlite, so `Session.resume(run_id, out)`
in another process finds the same decision pending. Questions (`ask`), evidence and a fresh
`verify` read the state and never change it; `undo` reverts through the workspace ledger.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from porter.graph import build_graph, units_of, verify_now
from porter.llm import Provider, open_model
from porter.llm.session import Model
from porter.run import CHECKPOINTS, Progress, _serde, _write_run_file, new_run_id
from porter.session import review, vcs
from porter.session import state as session_state
from porter.session.state import APPROVALS, Decision, SessionState
from porter.state import ModelCall, PortOptions, Severity, UnitResult
from porter.workspace import STATE_DIR, VCS_DIR, BadInput, Workspace, check_output_dir

RECURSION_LIMIT = 100_000  # one review step per item: a large tree has thousands


class SessionError(ValueError):
    """An action that does not fit where the session is; the message is one line for the person."""


@dataclass
class Step:
    """What happened since the last action, and what the session waits for now."""

    pending: dict | None = None  # the interrupt's payload; None when finished or cancelled
    finished: bool = False
    nodes: list[str] = field(default_factory=list)  # steps that completed, in order
    decisions: list[Decision] = field(default_factory=list)  # recorded since the last action
    notes: list[str] = field(default_factory=list)


class Session:
    def __init__(self, output: Path, run_id: str, *, provider: Provider | None = None,
                 on_progress: Callable[[Progress], None] = lambda event: None,
                 initial: SessionState | None = None) -> None:
        self.output = output
        self.run_id = run_id
        self.config = {"configurable": {"thread_id": run_id}, "recursion_limit": RECURSION_LIMIT}
        self.on_progress = on_progress
        self._conn = sqlite3.connect(output / STATE_DIR / CHECKPOINTS, check_same_thread=False)
        self._initial = initial
        try:
            options = initial.options if initial else self._recorded().options
        except BadInput:
            self._conn.close()
            raise
        self.model: Model | None = open_model(options.model, provider)
        self.graph = build_graph(SqliteSaver(self._conn, serde=_serde(session_state)), self.model, session=True)
        self.asked: list[ModelCall] = []
        self.wanted_approvals: str | None = None

    @classmethod
    def start(cls, source: Path, output: Path, options: PortOptions, *, approvals: str = "review",
              git: bool | None = None, provider: Provider | None = None,
              on_progress: Callable[[Progress], None] = lambda event: None) -> Session:
        """Lay out OUT from SOURCE and open a session; `git` None: commit when OUT is a work tree."""
        source, output = source.resolve(), output.resolve()
        if approvals not in APPROVALS:
            raise BadInput(f"--approvals {approvals}: expected one of {', '.join(APPROVALS)}")
        in_git = vcs.is_top_of_work_tree(output)
        only_git = output.is_dir() and {p.name for p in output.iterdir()} <= {VCS_DIR}
        check_output_dir(source, output, force=options.force or (in_git and only_git))
        use_git = in_git if git is None else git
        run_id = new_run_id()
        ws, copied = Workspace.create(source, output)
        if use_git:
            try:
                vcs.prepare(output, f"porter: copy of {source.name} (session {run_id})")
            except vcs.GitError as e:
                raise BadInput(str(e)) from None
        initial = SessionState(run_id=run_id, source=str(source), output=str(output), options=options,
                               notes=[f"{c.path}: {c.note}" for c in copied], approvals=approvals, git=use_git)
        return cls(output, run_id, provider=provider, on_progress=on_progress, initial=initial)

    @classmethod
    def resume(cls, run_id: str, output: Path, *, provider: Provider | None = None,
               on_progress: Callable[[Progress], None] = lambda event: None) -> Session:
        output = output.resolve()
        if not (output / STATE_DIR / CHECKPOINTS).is_file():
            raise BadInput(f"{output}: nothing to resume (no {STATE_DIR}/{CHECKPOINTS} here)")
        session = cls(output, run_id, provider=provider, on_progress=on_progress)
        return session

    def _recorded(self) -> SessionState:
        saver = SqliteSaver(self._conn, serde=_serde(session_state))
        checkpoint = saver.get({"configurable": {"thread_id": self.run_id}})
        if not checkpoint or not checkpoint["channel_values"].get("run_id"):
            raise BadInput(f"{self.output}: no session {self.run_id!r} recorded here")
        if "approvals" not in checkpoint["channel_values"]:
            raise BadInput(f"{self.output}: run {self.run_id} is a `porter port` run, not a session; "
                           f"continue it with porter port --resume {self.run_id}")
        return SessionState.model_validate({k: v for k, v in checkpoint["channel_values"].items()
                                            if k in SessionState.model_fields})

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- where the session stands

    @property
    def state(self) -> SessionState:
        values = self.graph.get_state(self.config).values
        return SessionState.model_validate(values) if values else self._initial  # type: ignore[return-value]

    @property
    def pending(self) -> dict | None:
        for task in self.graph.get_state(self.config).tasks:
            for intr in task.interrupts:
                return intr.value
        return None

    @property
    def finished(self) -> bool:
        snap = self.graph.get_state(self.config)
        return bool(snap.values) and not snap.next

    @property
    def ws(self) -> Workspace:
        return Workspace(self.output)

    # -- running the graph

    def advance(self, answer: dict | None = None) -> Step:
        """Run to the next decision (or the end). `answer` resumes the pending interrupt.

        A KeyboardInterrupt stops the step it is in and propagates; the last checkpoint stands,
        and `advance()` runs that step again from its start.
        """
        if self.finished:
            return Step(finished=True)
        if answer is not None:
            stream_input: object = Command(resume=answer)
        elif not self.graph.get_state(self.config).values:
            stream_input = self._initial
        else:
            stream_input = None
        step = Step()
        for mode, chunk in self.graph.stream(stream_input, self.config, stream_mode=["updates", "custom"]):
            if mode == "custom":
                self.on_progress(Progress(**chunk))
                continue
            for node, update in chunk.items():
                if node == "__interrupt__":
                    continue
                step.nodes.append(node)
                self.on_progress(Progress(node=node, done=1, total=1))
                if isinstance(update, dict):
                    step.decisions += update.get("decisions", [])
                    step.notes += update.get("notes", [])
        step.pending = self.pending
        step.finished = self.finished
        if step.finished:
            _write_run_file(self.state)
        wanted = self.wanted_approvals
        if step.pending is not None and wanted and step.pending.get("approvals") != wanted:
            self.wanted_approvals = None
            return self._merge(step, self.advance({"action": "approvals", "mode": wanted}))
        return step

    @staticmethod
    def _merge(first: Step, then: Step) -> Step:
        return Step(pending=then.pending, finished=then.finished, nodes=first.nodes + then.nodes,
                    decisions=first.decisions + then.decisions, notes=first.notes + then.notes)

    def _answer(self, kind: str, answer: dict) -> Step:
        pending = self.pending
        if pending is None:
            raise SessionError("no decision is pending" + (": the run is finished" if self.finished
                                                            else "; /next runs on to the next one"))
        if pending["kind"] != kind:
            raise SessionError(f"the pending decision is a {pending['kind']} decision; "
                               + ("a, r, e, A or ?" if pending["kind"] == "patch" else "a (go on) or s (stop)"))
        return self.advance(answer)

    # -- actions: each is one Command(resume=...)

    def accept(self) -> Step:
        pending = self.pending
        if pending is not None and pending["kind"] == "route":
            return self.go_on()
        return self._answer("patch", {"action": "accept"})

    def reject(self, why: str = "rejected by a person") -> Step:
        return self._answer("patch", {"action": "reject", "why": why})

    def edit(self, text: str) -> Step:
        return self._answer("patch", {"action": "edit", "text": text})

    def accept_unit(self) -> Step:
        return self._answer("patch", {"action": "accept-unit"})

    def go_on(self) -> Step:
        return self._answer("route", {"action": "accept"})

    def stop(self) -> Step:
        return self._answer("route", {"action": "stop"})

    def undo(self) -> Step:
        """Revert the last landed patch (with git, porter's last commit when it holds that patch)."""
        live = self.ws.live()
        if not live:
            raise SessionError("nothing to undo: no patch has landed")
        if self.pending is not None:
            step = self.advance({"action": "undo", "seq": live[-1].seq})
        else:
            step = Step(finished=self.finished,
                        decisions=review.undo_decisions(self.ws, self.state, live[-1].seq))
        refused = [d.detail for d in step.decisions if d.action == "undone" and d.seq is None]
        if refused:
            raise SessionError(refused[0].removeprefix("refused: "))
        return step

    def set_approvals(self, mode: str) -> Step:
        if mode not in APPROVALS:
            raise SessionError(f"approvals {mode!r}: expected one of {', '.join(APPROVALS)}")
        if self.pending is not None:
            return self.advance({"action": "approvals", "mode": mode})
        if self.finished:
            raise SessionError("the run is finished; approvals apply to the decisions of a run")
        self.wanted_approvals = mode
        return Step()

    # -- reading, never changing

    def current_unit(self) -> str | None:
        pending = self.pending
        if pending is not None and pending.get("path"):
            return pending["path"]
        decided = [d.path for d in self.state.decisions if d.path]
        return decided[-1] if decided else None

    def units(self) -> list[str]:
        return units_of(self.state)

    def evidence(self, unit: str) -> UnitResult:
        state = self.state
        if unit not in state.units:
            known = ", ".join(sorted(state.units)) or "none yet"
            raise SessionError(f"no evidence for {unit!r} (verified units: {known})")
        return state.units[unit]

    def verify(self, unit: str | None = None) -> dict[str, UnitResult]:
        """Compile and check `unit` (every unit when None) as the output tree stands now."""
        units = self.units()
        if unit is not None and unit not in units:
            raise SessionError(f"{unit!r} is not a unit; units: {', '.join(units) or 'none'}")
        return verify_now(self.state, [unit] if unit else units)

    def ask(self, question: str, unit: str | None = None) -> str:
        """The model's answer about `unit` (the current one by default); it edits nothing."""
        from porter.llm import asks, prompts
        from porter.llm.exchange import Message, Prompt, ProviderError

        if self.model is None:
            raise SessionError("no model: start the session with --model (or --replay) to ask questions")
        if not question.strip():
            raise SessionError("/ask needs a question")
        unit = unit or self.current_unit()
        if unit is None:
            raise SessionError("no current unit to ask about yet: /next first")
        state = self.state
        if (why := self.model.exhausted([*state.model_calls, *self.asked])) is not None:
            raise SessionError(f"model budget spent ({why})")
        prompt = Prompt(system=prompts.render("session/ask_system", target=state.options.arch),
                        messages=(Message("user", prompts.render("session/ask", question=question.strip(),
                                                                 **asks.unit_context(state, self.ws, unit))),),
                        task="session/ask")
        try:
            answer = self.model.provider.complete(prompt)
        except ProviderError as e:
            self.asked.append(ModelCall(agent="user", task="session/ask", unit=unit, iteration=state.iteration,
                                        model=self.model.provider.name, outcome="error", detail=str(e)[:500]))
            raise SessionError(f"the model gave no answer: {e}") from None
        price = self.model.price(answer.model)
        self.asked.append(ModelCall(agent="user", task="session/ask", unit=unit, iteration=state.iteration,
                                    model=answer.model, input_tokens=answer.input_tokens,
                                    output_tokens=answer.output_tokens, outcome="no-edit",
                                    cost_usd=price.cost(answer.input_tokens, answer.output_tokens) if price else None))
        return answer.text

    def status(self) -> dict:
        """Units and verdicts, open hazards, where the run is and what waits: plain data."""
        state = self.state
        snap = self.graph.get_state(self.config)
        live = self.ws.live()
        hazards = [f for f in state.findings if not f.fixed and f.severity in (Severity.error, Severity.warning)]
        return {"run_id": self.run_id, "approvals": state.approvals, "git": state.git,
                "iteration": state.iteration, "next": list(snap.next), "finished": self.finished,
                "pending": self.pending, "queued": len(state.queue),
                "units": {u: (state.units[u].verdict if u in state.units else "not verified yet") for u in self.units()},
                "landed": len(live), "last_landed": f"{live[-1].patch.rule or live[-1].patch.origin} on "
                                                    f"{live[-1].patch.path} (ledger {live[-1].seq})" if live else "",
                "decisions": {a: sum(d.action == a for d in state.decisions)
                              for a in ("accepted", "rejected", "edited", "auto", "proposed", "stale", "undone")},
                "hazards": [f"{f.rule} {f.severity.value} {f.location}: {f.message}" for f in hazards]}
