"""One port run: lay out the output tree, drive the graph with its checkpointer, resume.

This is what `porter port` calls. The source tree is only read; everything is written under
the output tree, porter's own state in `OUT/.porter/` (ledger, blobs, checkpoints.sqlite).
The model the agents may ask is opened here from the options (`porter.llm.open_model`), and
handed to the graph beside the state: a client is not state, the options that name it are.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from porter.cluster import Dispatcher, LocalDispatcher
from porter.graph import build_graph
from porter.llm import Provider, open_model
from porter.state import PortOptions, PortState
from porter.workspace import BadInput, Workspace, check_output_dir

CHECKPOINTS = "checkpoints.sqlite"


@dataclass(frozen=True)
class Progress:
    """A step of a run: `done` of `total` items of a node's work (a finished node is 1 of 1)."""

    node: str
    done: int
    total: int
    item: str = ""


def _serde(*modules) -> JsonPlusSerializer:
    """A serializer that restores porter's state types (and those of `modules`), and only those,
    from a checkpoint."""
    import enum

    from pydantic import BaseModel

    from porter import state

    types = [(m.__name__, name) for m in (state, *modules) for name, obj in vars(m).items()
             if isinstance(obj, type) and issubclass(obj, (BaseModel, enum.Enum)) and obj.__module__ == m.__name__]
    return JsonPlusSerializer(allowed_msgpack_modules=types)


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def port(source: Path, output: Path, options: PortOptions, *, resume: str | None = None,
         on_progress: Callable[[Progress], None] = lambda event: None, provider: Provider | None = None,
         dispatcher: Dispatcher | None = None) -> PortState:
    """Port `source` into `output` (or continue run `resume` there) and return the final state.

    `on_progress` hears each node as it finishes and each unit the verifier compiles.
    `provider` answers the agents instead of the one `options.model` names (a ScriptedModel in tests).
    `dispatcher` runs the per-unit work (porter.cluster; in this process when None); its tasks'
    durations are written to `OUT/.porter/task-durations.json` for `porter cluster plan`.
    """
    dispatcher = dispatcher or LocalDispatcher()
    source, output = source.resolve(), output.resolve()
    check_output_dir(source, output, force=options.force, resume=resume is not None)
    model = open_model(options.model, provider)
    if resume is None:
        run_id = new_run_id()
        ws, copied = Workspace.create(source, output)
        initial: PortState | None = PortState(
            run_id=run_id, source=str(source), output=str(output), options=options,
            notes=[f"{c.path}: {c.note}" for c in copied])
    else:
        run_id, initial = resume, None
    config = {"configurable": {"thread_id": run_id}, "recursion_limit": 200}
    db = output / ".porter" / CHECKPOINTS
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        graph = build_graph(SqliteSaver(conn, serde=_serde()), model, dispatcher=dispatcher)
        if resume is not None and not graph.get_state(config).values:
            raise BadInput(f"{output}: no run {resume!r} recorded in {db}")
        last = None
        for mode, chunk in graph.stream(initial, config, stream_mode=["updates", "custom", "values"]):
            if mode == "custom":
                on_progress(Progress(**chunk))
            elif mode == "values":
                last = chunk  # the state after each step: the last one is the run's result
            else:
                for node in chunk:
                    on_progress(Progress(node=node, done=1, total=1))
        # Read back from the checkpoint only where the stream ran no step (a finished run resumed):
        # a 1,000-file port's last checkpoint took seconds to load.
        final = PortState.model_validate(last if last is not None else graph.get_state(config).values)
    _write_run_file(final)
    dispatcher.write_durations(output / ".porter")
    return final


def _write_run_file(state: PortState) -> None:
    """What `porter verify` needs of a finished run, readable without LangGraph or tree-sitter."""
    from porter.verify.evidence import RUN_FILE

    run = {"run_id": state.run_id, "source": state.source, "arch": state.options.arch,
           "kernels": sorted({(k.location.path, k.name) for k in state.kernels})}
    (Path(state.output) / ".porter" / RUN_FILE).write_text(json.dumps(run, indent=2) + "\n")


def run_ids(output: Path) -> list[str]:
    """Runs recorded in an output tree, oldest first."""
    db = output / ".porter" / CHECKPOINTS
    if not db.exists():
        return []
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT thread_id, MIN(rowid) FROM checkpoints GROUP BY thread_id ORDER BY 2").fetchall()
    return [r[0] for r in rows]
