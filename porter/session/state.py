"""The state of an interactive session: a `PortState` plus what the person decided.

A session runs the same graph as `porter port` with review points added (porter/graph.py,
`build_graph(session=True)`). An agent's patches do not land at once: they wait in `queue`, one
item per rule and file, and the review node lands or drops them one by one as the person (or
the approval mode) decides. Every decision is kept in `decisions`, so `/status`, the report and
a resumed session read the same record.
"""

from __future__ import annotations

from typing import Annotated, Literal

from porter.state import Frozen, Patch, PortState, append

Approvals = Literal["review", "auto-verified", "plan"]
APPROVALS: tuple[str, ...] = ("review", "auto-verified", "plan")

Action = Literal["accepted", "rejected", "edited", "auto", "proposed", "stale", "undone", "stopped", "routed"]


class Decision(Frozen):
    """What became of one review item, or of one verifier verdict that routed back."""

    agent: str  # the agent whose patch it was; "verifier" for a routing decision
    iteration: int
    path: str = ""
    rule: str = ""
    action: Action
    seq: int | None = None  # the ledger entry it landed (or, for "undone", the entry reverted)
    detail: str = ""  # why: the person's choice, a conflict, the route taken
    diff: str = ""  # for "proposed" (plan mode): what would have landed


class SessionState(PortState):
    approvals: Approvals = "review"
    git: bool = False  # commit each reviewed unit in the output tree's git work tree
    queue: list[Patch] = []  # review items of the agent that ran last, not yet decided
    review_after: str = ""  # that agent: where the graph goes when the queue is empty
    decisions: Annotated[list[Decision], append] = []
