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
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from langgraph.graph import END, START, StateGraph

from porter import cluster
from porter.agents.microarch import node as microarch
from porter.agents.shim import node as shim
from porter.agents.translator import node as translator
from porter.agents.verifier import node as verifier
from porter.llm.session import Model
from porter.state import AgentOutput, PortState
from porter.workspace import Workspace

AGENTS = ("translator", "microarch", "shim")


def scan_node(state: PortState) -> dict:
    from porter.scan import scan_tree

    ws = Workspace(Path(state.output))
    inventory = scan_tree(ws.root, ws.files())
    return {"files": inventory.files, "kernels": inventory.kernels}


def _agent(module_name: str, model: Model | None) -> Callable[[PortState], dict]:
    def node(state: PortState) -> dict:
        module = {"translator": translator, "microarch": microarch, "shim": shim}[module_name]
        ws = Workspace(Path(state.output))
        out: AgentOutput = getattr(module, module_name)(state, ws, model)
        landed = ws.apply(list(out.patches))
        return {"findings": list(out.findings), "patches": landed, "attempts": list(out.attempts),
                "model_calls": list(out.model_calls), "notes": list(out.notes)}

    node.__name__ = module_name
    return node


def verifier_node(state: PortState) -> dict:
    return verifier.verifier(state, Workspace(Path(state.output)))


def report_node(state: PortState) -> dict:
    from porter.report import write_reports
    from porter.run import report_context

    write_reports(state, Path(state.output), **report_context())
    return {}


def route(state: PortState) -> str:
    return state.route or "report"


def _with(name: str, dispatcher: cluster.Dispatcher | None, node: Callable[[PortState], dict]
          ) -> Callable[[PortState], dict]:
    def dispatched(state: PortState) -> dict:
        with cluster.using(dispatcher) as current, current.timed(name):
            return node(state)

    dispatched.__name__ = name
    return dispatched


def build_graph(checkpointer=None, model: Model | None = None, dispatcher: cluster.Dispatcher | None = None):
    g = StateGraph(PortState)
    g.add_node("scan", _with("scan", dispatcher, scan_node))
    for name in AGENTS:
        g.add_node(name, _with(name, dispatcher, _agent(name, model)))
    g.add_node("verifier", _with("verifier", dispatcher, verifier_node))
    g.add_node("report", _with("report", dispatcher, report_node))
    g.add_edge(START, "scan")
    g.add_edge("scan", "translator")
    g.add_edge("translator", "microarch")
    g.add_edge("microarch", "shim")
    g.add_edge("shim", "verifier")
    g.add_conditional_edges("verifier", route, {**{a: a for a in AGENTS}, "report": "report"})
    g.add_edge("report", END)
    return g.compile(checkpointer=checkpointer)
