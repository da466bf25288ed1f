"""The review points of a session's graph: where LangGraph's `interrupt()` hands a decision to a person.

In a session (porter/graph.py, `build_graph(session=True)`) an agent's patches do not land in
its node: they become review items (`items.split`) in `SessionState.queue`, and the `review`
node decides them one per step. With approvals `review` it interrupts with the item (a plain
dict: the diff, its rule ids, why, fix safety) and lands, drops or replaces it by the person's
answer; `auto-verified` lands every item and leaves the judgement to the verifier; `plan` lands
nothing and records what would have landed. The `route` node interrupts when the verifier sends
units back for another round, so a person can let the loop go on or end it.

A node with an interrupt is run again from its start when the graph resumes (in this process or
another), so both nodes do nothing with side effects before their one interrupt, and what they
do after it is idempotent: an undo names the ledger entry it reverts, a landing that already
happened is recognised by the workspace, a git commit that HEAD already records is not repeated.
Answers are dicts with an "action": accept, reject, edit (with "text"), accept-unit, undo (with
"seq"), approvals (with "mode"); at a route point accept (go on) or stop.
"""

from __future__ import annotations

from pathlib import Path

from langgraph.types import Command, interrupt

from porter import rules as rule_catalog
from porter.session import items, vcs
from porter.session.state import APPROVALS, Decision, SessionState
from porter.state import AgentOutput, Finding, Patch, content_hash
from porter.workspace import PatchConflict, Workspace

PATCH_ACTIONS = ("accept", "reject", "edit", "accept-unit", "undo", "approvals")
ROUTE_ACTIONS = ("accept", "stop", "undo", "approvals")
LANDED = ("accepted", "edited", "auto")


class UndoRefused(RuntimeError):
    """Nothing to undo, or the last patch may not be undone; the message is one line."""


def proposals(agent: str, out: AgentOutput, ws: Workspace) -> dict:
    """What a session's agent node returns instead of landing: its patches as review items.

    The text each patch was written against is kept, so that an item can still be carried onto
    its file when an earlier one was rejected (a model patch follows the rules' patches).
    """
    overlay: dict[str, bytes] = {}
    for patch in out.patches:
        if patch.base_hash is None:
            overlay[patch.path] = patch.apply_to(b"")
            continue
        base = overlay.get(patch.path)
        if base is None:
            base = items.read(ws, patch.path) or b""
        if content_hash(base) == patch.base_hash:
            ws.keep(base)
            overlay[patch.path] = patch.apply_to(base)
    return {"queue": items.split(list(out.patches)), "review_after": agent}


def review(state: SessionState) -> dict:
    """Decide the first waiting item (with approvals `review`), or all of them (otherwise)."""
    ws = Workspace(Path(state.output))
    queue = list(state.queue)
    if state.approvals != "review":
        return _without_asking(state, ws, queue)
    out = _Out()
    while queue:
        rebased, why = items.rebase(ws, queue[0])
        if rebased is not None:
            break
        out.drop(state, queue.pop(0), "stale", why)
    if not queue:
        return out.update(queue)
    item = queue[0]
    answer = interrupt(patch_payload(state, ws, item, rebased, out.notes))
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "undo":
        undone = undo_decisions(ws, state, answer.get("seq"))
        out.decisions += undone
        return out.update(_requeued(state, ws, undone) + queue)
    if action == "approvals" and answer.get("mode") in APPROVALS:
        return {**out.update(queue), "approvals": answer["mode"]}
    if action not in PATCH_ACTIONS:
        return out.update(queue)  # asks again
    queue.pop(0)
    if action == "accept":
        out.land(state, ws, item, rebased, "accepted", "accepted")
    elif action == "reject":
        out.drop(state, item, "rejected", str(answer.get("why", "rejected")))
    elif action == "edit":
        out.edit(state, ws, item, rebased, str(answer.get("text", "")))
    else:  # accept-unit: this item and the rest of its file's
        out.land(state, ws, item, rebased, "accepted", "accepted with the rest of the unit")
        while queue and queue[0].path == item.path:
            nxt = queue.pop(0)
            moved, why = items.rebase(ws, nxt)
            if moved is None:
                out.drop(state, nxt, "stale", why)
            else:
                out.land(state, ws, nxt, moved, "accepted", "accepted with the rest of the unit")
    if state.git and (not queue or queue[0].path != item.path):
        out.commit(state, ws, item.agent, item.path)
    return out.update(queue)


def _requeued(state: SessionState, ws: Workspace, undone: list[Decision]) -> list[Patch]:
    """Undone patches of the batch under review go back to the front of its queue: undoing a
    decision made here means deciding again. The patch applies as it stands, since the file is
    back where it was when the patch landed."""
    batch = {d.seq for d in state.decisions if d.agent == state.review_after and d.iteration == state.iteration
             and d.action in LANDED}
    history = {e.seq: e.patch for e in ws.history()}
    return [history[d.seq] for d in reversed(undone) if d.seq in batch]


def _without_asking(state: SessionState, ws: Workspace, queue: list[Patch]) -> dict:
    out = _Out()
    for n, item in enumerate(queue):
        rebased, why = items.rebase(ws, item)
        if rebased is None:
            out.drop(state, item, "stale", why)
        elif state.approvals == "plan":
            current = items.read(ws, item.path)
            out.drop(state, item, "proposed", "plan: proposed only",
                     diff=items.unified_diff(item.path, current, rebased.apply_to(current or b"")))
        else:
            out.land(state, ws, item, rebased, "auto", "landed (auto-verified: the verifier judges it)")
        if state.git and (n + 1 == len(queue) or queue[n + 1].path != item.path):
            out.commit(state, ws, item.agent, item.path)
    return out.update([])


class _Out:
    """What one review step returns, gathered as it goes."""

    def __init__(self) -> None:
        self.decisions: list[Decision] = []
        self.patches: list[Patch] = []
        self.findings: list[Finding] = []
        self.notes: list[str] = []

    def update(self, queue: list[Patch]) -> dict:
        return {"queue": queue, "decisions": self.decisions, "patches": self.patches, "findings": self.findings}

    def land(self, state: SessionState, ws: Workspace, item: Patch, patch: Patch, action: str, detail: str) -> None:
        try:
            ws.apply([patch])
        except PatchConflict as e:
            self.drop(state, item, "stale", str(e))
            return
        self.patches.append(patch)
        self.decisions.append(Decision(agent=item.agent, iteration=state.iteration, path=item.path, rule=item.rule,
                                       action=action, seq=_seq_of(ws, patch), detail=detail))

    def drop(self, state: SessionState, item: Patch, action: str, detail: str, diff: str = "") -> None:
        """The item does not land: its rules' findings there are open again."""
        if action == "stale":
            self.notes.append(f"{item.rule or item.origin} on {item.path} no longer applies: {detail}")
        self.decisions.append(Decision(agent=item.agent, iteration=state.iteration, path=item.path, rule=item.rule,
                                       action=action, detail=detail, diff=diff))
        ids = set(items.rules_of(item))
        self.findings += [f.model_copy(update={"fixed": False}) for f in state.findings
                          if f.fixed and f.rule in ids and f.location.path == item.path]

    def edit(self, state: SessionState, ws: Workspace, item: Patch, rebased: Patch, text: str) -> None:
        current = items.read(ws, item.path)
        if current is not None and text.encode() == rebased.apply_to(current):
            self.land(state, ws, item, rebased, "accepted", "edited to exactly the proposal: accepted")
            return
        patch = items.user_patch(item.path, current, text, rule=item.rule,
                                 reason=f"edited by a person from {item.rule or item.origin}: {item.reason}")
        if patch is None:
            self.drop(state, item, "rejected", "edited back to the file as it was")
            return
        self.land(state, ws, item, patch, "edited", "edited in $EDITOR: lands as a user patch")

    def commit(self, state: SessionState, ws: Workspace, agent: str, path: str) -> None:
        live = {e.seq for e in ws.live()}
        mine = [d for d in [*state.decisions, *self.decisions]
                if d.agent == agent and d.iteration == state.iteration and d.path == path
                and d.action in LANDED and d.seq in live]
        if not mine:
            return
        rules = sorted({r for d in mine for r in d.rule.split(",") if r})
        subject = f"porter {agent}: {path}" + (f" ({', '.join(rules)})" if rules else "")
        body = [f"- {d.rule or 'model'}: {d.action} (ledger {d.seq})" for d in mine]
        try:
            vcs.commit(ws.root, [path], subject, body, [d.seq for d in mine if d.seq is not None])
        except vcs.GitError as e:
            self.notes.append(str(e))


def _seq_of(ws: Workspace, patch: Patch) -> int | None:
    return next((e.seq for e in reversed(ws.live()) if e.patch == patch), None)


def patch_payload(state: SessionState, ws: Workspace, item: Patch, rebased: Patch, notes: list[str]) -> dict:
    """What a client shows for one item: plain data, which the checkpointer stores as is."""
    current = items.read(ws, item.path)
    after = rebased.apply_to(current or b"")
    here = [d for d in state.decisions if d.iteration == state.iteration and d.path == item.path
            and d.agent in (item.agent, "user")]
    done = sum(d.action not in ("undone", "routed", "stopped") for d in here) - sum(d.action == "undone" for d in here)
    same = sum(p.path == item.path for p in state.queue)  # this item and the rest of its file's
    ids = items.rules_of(item)
    why, safety = explain(ids, item)
    return {"kind": "patch", "agent": item.agent, "iteration": state.iteration, "path": item.path,
            "origin": item.origin, "rule": item.rule, "rules": ids, "reason": item.reason, "why": why,
            "safety": safety, "diff": items.unified_diff(item.path, current, after),
            "proposed": after.decode(errors="replace"), "index": done + 1, "of": done + same,
            "left": len(state.queue), "approvals": state.approvals, "notes": list(notes)}


def explain(ids: list[str], item: Patch | None = None) -> tuple[str, str]:
    """Why the rules fire and how safe their fixes are, from the catalog's docstrings."""
    if item is not None and item.origin != "rule":
        return (item.reason, f"{item.origin} patch: compiled and checked by the verifier like any other; "
                             "a model patch that leaves its unit no better is reverted")
    catalog = rule_catalog.load()
    whys, safeties = [], []
    for rule_id in ids:
        r = catalog.get(rule_id)
        if r is None:
            continue
        whys.append(f"{r.id} ({r.title}): {r.section('Why')}")
        safeties.append(f"{r.id}: fix {r.fix}" + (f"; {r.section('Fix safety')}" if r.section("Fix safety") else ""))
    return "\n".join(whys), "\n".join(safeties)


def undo_decisions(ws: Workspace, state: SessionState, seq: int | None) -> list[Decision]:
    """`undo` as decisions to record: one per reverted entry, or one saying why none was."""
    try:
        done = undo(ws, state.git, seq)
    except UndoRefused as e:
        return [Decision(agent="user", iteration=state.iteration, action="undone", detail=f"refused: {e}")]
    return [Decision(agent=p.agent, iteration=state.iteration, path=p.path, rule=p.rule, action="undone", seq=s,
                     detail="reverted through the ledger" + (" and porter's commit dropped" if git else ""))
            for s, p, git in done]


def undo(ws: Workspace, git: bool, seq: int | None = None) -> list[tuple[int, Patch, bool]]:
    """Revert the last landed patch through the ledger (with git: porter's whole last commit, when
    that patch is in it). `seq`, when given, must be that patch's entry: an undo resumed after it
    happened does not revert a second patch. Never touches the source tree."""
    live = ws.live()
    if not live:
        raise UndoRefused("nothing to undo: no patch has landed")
    last = live[-1]
    if seq is not None and last.seq != seq:
        return []
    seqs, head = [last.seq], None
    if git:
        try:
            head = vcs.undoable_head(ws.root, last.seq)
        except vcs.GitError as e:
            raise UndoRefused(str(e)) from None
        if head:
            alive = {e.seq for e in live}
            seqs = sorted((s for s in head if s in alive), reverse=True)
    done = []
    for s in seqs:
        try:
            done.append((s, ws.revert(s), head is not None))
        except PatchConflict as e:
            raise UndoRefused(str(e)) from None
    if head:
        vcs.drop_head(ws.root)
    return done


def route(state: SessionState) -> Command:
    """Before the verifier sends units back: ask whether the loop goes on (not in plan mode)."""
    goto = state.route or "report"
    if goto == "report":
        return Command(goto="report")
    if state.approvals == "plan":
        return Command(update={"route": "report", "decisions": [Decision(
            agent="verifier", iteration=state.iteration, action="stopped",
            detail="plan: nothing landed, so another round would change nothing")]}, goto="report")
    ws = Workspace(Path(state.output))
    failed = [{"unit": u, "failure_class": r.failure_class, "reason": r.reason}
              for u, r in sorted(state.units.items()) if u in state.pending]
    answer = interrupt({"kind": "route", "route": goto, "iteration": state.iteration,
                        "max_iterations": state.options.max_iterations, "failed": failed,
                        "approvals": state.approvals})
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "undo":
        return Command(update={"decisions": undo_decisions(ws, state, answer.get("seq"))}, goto="route")
    if action == "approvals" and answer.get("mode") in APPROVALS:
        return Command(update={"approvals": answer["mode"]}, goto="route")
    if action == "stop":
        units = ", ".join(f["unit"] for f in failed)
        return Command(update={"route": "report", "notes": [f"a person ended the verifier loop at iteration "
                                                             f"{state.iteration} with unit(s) failing: {units}"],
                               "decisions": [Decision(agent="verifier", iteration=state.iteration, action="stopped",
                                                      detail=f"stopped before going back to {goto}")]},
                       goto="report")
    if action != "accept":
        return Command(goto="route")
    return Command(update={"decisions": [Decision(agent="verifier", iteration=state.iteration, action="routed",
                                                  detail=f"back to {goto} for {len(failed)} unit(s)")]}, goto=goto)
