"""The LangGraph wiring: nodes, edges and the verifier's routing. No business logic here.

    scan -> translator -> microarch -> shim -> verifier --(all compile, or budget spent)--> report
                ^             ^          ^        |
                +-------------+----------+--------+   (routed by failure class)

Agents return proposals; the node wrappers here land their patches through the one
`Workspace`, so agents never write files. The run's model (porter.llm.Model, or None for
rules only) is handed to each agent node: a client lives outside the state, which stays plain
data. Every step is checkpointed by the SQLite saver the caller passes in, under the output
tree, which is what `--resume` continues from. The run's dispatcher (porter.cluster: in-process,
or a Ray cluster) is, like the model, handed in beside the state; each node runs with it as the
current one, where its per-unit work fans out.

Each node is `_contained`: an exception it raises becomes an `internal-error` finding for the
whole run (porter.containment) and the graph goes on to the next node, so the report is still
written and says what porter failed to do.

`build_graph(session=True)` is the graph of an interactive session (porter.session): the same
nodes, except that an agent's patches wait in a `review` node for a person's decision and a
`route` node asks before the verifier sends units back; both pause with LangGraph's interrupt().
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph

from porter import cluster
from porter.agents.microarch import node as microarch
from porter.agents.shim import node as shim
from porter.agents.translator import node as translator
from porter.agents.translator import tables as translation_tables
from porter.agents.verifier import node as verifier
from porter.llm.session import Model
from porter.session import review
from porter.session.state import SessionState
from porter.state import AgentOutput, PortState, UnitResult
from porter.workspace import Workspace

if TYPE_CHECKING:
    from porter.report.context import ReportContext

AGENTS = ("translator", "microarch", "shim")


def scan_node(state: PortState) -> dict:
    from porter.scan import scan_tree

    ws = Workspace(Path(state.output))
    inventory = scan_tree(ws.root, ws.files())
    return {"files": inventory.files, "kernels": inventory.kernels, "findings": inventory.errors}


def _agent(module_name: str, model: Model | None, session: bool = False) -> Callable[[PortState], dict]:
    def node(state: PortState) -> dict:
        module = {"translator": translator, "microarch": microarch, "shim": shim}[module_name]
        ws = Workspace(Path(state.output))
        out: AgentOutput = getattr(module, module_name)(state, ws, model)
        learnt = {"findings": list(out.findings), "attempts": list(out.attempts),
                  "model_calls": list(out.model_calls), "notes": list(out.notes)}
        if session:  # a person decides what lands, in the review node that follows
            return {**learnt, **review.proposals(module_name, out, ws)}
        landed = ws.apply(list(out.patches))
        return {**learnt, "patches": landed}

    node.__name__ = module_name
    return node


def verifier_node(state: PortState) -> dict:
    return verifier.verifier(state, Workspace(Path(state.output)))


@cache
def report_context() -> ReportContext:
    """`build_report`'s keywords for this process: header set, the translator's tables, toolchains."""
    from porter.report.context import report_context as context

    return context(translation_tables.ENGINE)


def report_node(state: PortState) -> dict:
    from porter.report import write_reports

    write_reports(state, Path(state.output), **report_context())
    return {}


def _contained(name: str, node: Callable[[PortState], dict]) -> Callable[[PortState], dict]:
    from porter.containment import RUN, internal_error

    def contained(state: PortState) -> dict:
        try:
            return node(state)
        except GraphBubbleUp:
            raise  # LangGraph's own control flow (a session's interrupt), not a failure
        except Exception as exc:  # noqa: BLE001 - porter's own failure: recorded, and the run goes on
            update: dict = {"findings": [internal_error(RUN, f"{name} node", exc, agent=name)]}
            if name == "verifier":
                update["route"] = "report"  # no verdicts to route on
            return update

    contained.__name__ = name
    return contained


def route(state: PortState) -> str:
    return state.route or "report"


def _with(name: str, dispatcher: cluster.Dispatcher | None, node: Callable[[PortState], dict]
          ) -> Callable[[PortState], dict]:
    def dispatched(state: PortState) -> dict:
        with cluster.using(dispatcher) as current, current.timed(name):
            return node(state)

    dispatched.__name__ = name
    return dispatched


def verify_now(state: PortState, units: list[str]) -> dict[str, UnitResult]:
    """The verifier's evidence for `units` as the output tree stands, outside the graph (a
    session's /verify): compiled and checked, not routed, and the state is not changed."""
    ws = Workspace(Path(state.output))
    return {u: verifier.verify_unit(state, ws, u) for u in units}


def units_of(state: PortState) -> list[str]:
    return verifier.units_of(state)


def build_graph(checkpointer=None, model: Model | None = None, *, session: bool = False,
                dispatcher: cluster.Dispatcher | None = None):
    if session:
        return _session_graph(checkpointer, model)
    g = StateGraph(PortState)
    g.add_node("scan", _with("scan", dispatcher, _contained("scan", scan_node)))
    for name in AGENTS:
        g.add_node(name, _with(name, dispatcher, _contained(name, _agent(name, model))))
    g.add_node("verifier", _with("verifier", dispatcher, _contained("verifier", verifier_node)))
    g.add_node("report", _with("report", dispatcher, _contained("report", report_node)))
    g.add_edge(START, "scan")
    g.add_edge("scan", "translator")
    g.add_edge("translator", "microarch")
    g.add_edge("microarch", "shim")
    g.add_edge("shim", "verifier")
    g.add_conditional_edges("verifier", route, {**{a: a for a in AGENTS}, "report": "report"})
    g.add_edge("report", END)
    return g.compile(checkpointer=checkpointer)


def _session_graph(checkpointer, model: Model | None):
    """The same nodes with review points: each agent's patches wait in the `review` node for a
    person (porter.session.review), and `route` asks before the verifier sends units back.

        scan -> translator -> review -> microarch -> review -> shim -> review -> verifier -> route -> report
                    ^                      ^                   ^                             |
                    +----------------------+-------------------+-----------------------------+
    """
    g = StateGraph(SessionState)
    g.add_node("scan", _contained("scan", scan_node))
    for name in AGENTS:
        g.add_node(name, _contained(name, _agent(name, model, session=True)))
        g.add_edge(name, "review")
    g.add_node("review", review.review)
    g.add_node("verifier", _contained("verifier", verifier_node))
    g.add_node("route", review.route, destinations=(*AGENTS, "route", "report"))
    g.add_node("report", _contained("report", report_node))
    g.add_edge(START, "scan")
    g.add_edge("scan", "translator")
    after = dict(zip(AGENTS, (*AGENTS[1:], "verifier")))
    g.add_conditional_edges("review", lambda s: "review" if s.queue else after[s.review_after],
                            ["review", *AGENTS[1:], "verifier"])
    g.add_edge("verifier", "route")
    g.add_edge("report", END)
    return g.compile(checkpointer=checkpointer)
