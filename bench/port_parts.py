"""The parts of `porter port` around the rules, each timed alone: what bench/translate.py --port adds up.

    python bench/port_parts.py [--files 300] [--tree DIR ...] [--processes 2] [--repeat 3]

For the generated corpus of bench/translate.py (--files, seed 7) and each --tree (its C/C++/CUDA files,
copied), in this checkout's porter (run it with another checkout's Python to compare two):
  ledger     Workspace.apply of one patch of 40 one-letter edits per file, in one call, as an agent's node
             lands its patches (CPU seconds);
  scan       scan_tree over the copy, in this process and on --processes worker processes (wall seconds:
             the workers are started and warmed before the clock, as `porter port` starts them);
  gc         the translator's run_on_files in this process: CPU seconds and garbage collections (gc.callbacks);
  microarch  the microarch agent's run_on_files over the translated files, in this process (CPU seconds);
  readback   port --no-verify in this process, then its last checkpoint loaded and validated as a PortState
             (what port() did after the graph until 601cff8; CPU seconds).
Each is the best of --repeat. Real trees' code is read in place and never written or committed.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import translate as bench  # noqa: E402 - bench/translate.py: the corpus and the file selection


def best(repeat: int, fn, *args) -> float:
    return min(fn(*args) for _ in range(repeat))


def ledger_seconds(corpus: Path, work: Path) -> float:
    from porter.state import Edit, Patch, content_hash
    from porter.workspace import Workspace

    out = work / "ledger"
    shutil.rmtree(out, ignore_errors=True)
    ws, _ = Workspace.create(corpus, out)
    patches = []
    for rel in ws.files():
        data = ws.read(rel)
        # 40 one-letter edits, each over an ASCII letter or digit (a byte of no multi-byte character)
        at = [i for i in range(min(len(data), 4000)) if data[i:i + 1].isalnum()][::10][:40]
        edits = [Edit(start=i, end=i + 1, text="x") for i in at]
        patches.append(Patch(path=rel, base_hash=content_hash(data), edits=tuple(edits), agent="translator",
                             rule="HIP001", reason="bench"))
    began = time.process_time()
    Workspace(out).apply(patches)
    return time.process_time() - began


def scan_seconds(corpus: Path, dispatcher) -> float:
    from porter import cluster
    from porter.scan import scan_tree
    from porter.workspace import tree_files

    rels = tree_files(corpus)[0]
    with cluster.using(dispatcher):
        began = time.perf_counter()
        scan_tree(corpus, rels)
        return time.perf_counter() - began


def agents(corpus: Path) -> tuple[float, int, float]:
    """The translator's CPU seconds and collections in this process, then the microarch agent's CPU seconds."""
    from porter.rules import RuleContext, run_on_files
    from porter.state import FileKind, FileRecord
    from porter.syntax import forget

    forget()
    data = {p.relative_to(corpus).as_posix(): p.read_bytes() for p in bench.sources(corpus)}
    records = [FileRecord(path=r, kind=FileKind.cuda if bench.lang_for(r) == "cuda" else FileKind.cpp) for r in data]
    collections = [0]

    def count(phase: str, info: dict) -> None:
        collections[0] += phase == "start"

    gc.callbacks.append(count)
    try:
        began = time.process_time()
        _, patches = run_on_files("translator", records, data.__getitem__, RuleContext())
        translator = time.process_time() - began
    finally:
        gc.callbacks.remove(count)
    for patch in patches:
        data[patch.path] = patch.apply_to(data[patch.path])
    began = time.process_time()
    run_on_files("microarch", records, data.__getitem__, RuleContext())
    return translator, collections[0], time.process_time() - began


def readback_seconds(corpus: Path, work: Path) -> float:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from porter.graph import build_graph
    from porter.run import CHECKPOINTS, _serde, port
    from porter.state import PortOptions, PortState

    out = work / "port"
    shutil.rmtree(out, ignore_errors=True)
    final = port(corpus, out, PortOptions(verify=False))
    config = {"configurable": {"thread_id": final.run_id}}
    with closing(sqlite3.connect(out / ".porter" / CHECKPOINTS, check_same_thread=False)) as conn:
        graph = build_graph(SqliteSaver(conn, serde=_serde()))
        began = time.process_time()
        PortState.model_validate(graph.get_state(config).values)
        return time.process_time() - began


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--tree", type=Path, action="append", default=[])
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from porter import cluster

    pool = cluster.LocalDispatcher(processes=args.processes, min_items=2, min_bytes=0)
    try:
        with tempfile.TemporaryDirectory(prefix="porter-parts-") as tmp:
            work = Path(tmp)
            warm = work / "warm"
            warm.mkdir()
            bench.make_corpus(warm, 8, 1)
            scan_seconds(warm, pool)  # the workers' imports and catalog, before any clock
            pool.min_items, pool.min_bytes = 8, 1 << 20
            for tree in [None, *args.tree]:
                corpus = work / "corpus"
                shutil.rmtree(corpus, ignore_errors=True)
                corpus.mkdir()
                if tree is None:
                    bench.make_corpus(corpus, args.files, 7)
                    name = f"generated ({args.files} files)"
                else:
                    for path in bench.sources(tree):
                        target = corpus / path.relative_to(tree)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(path.read_bytes())
                    name = tree.name
                files = len(bench.sources(corpus))
                ledger = best(args.repeat, ledger_seconds, corpus, work)
                scan_1 = best(args.repeat, scan_seconds, corpus, None)
                scan_n = best(args.repeat, scan_seconds, corpus, pool)
                runs = [agents(corpus) for _ in range(args.repeat)]
                translator, collections = min((r[0], r[1]) for r in runs)
                microarch = min(r[2] for r in runs)
                readback = best(args.repeat, readback_seconds, corpus, work)
                print(f"{name}: {files} files | ledger {ledger:.2f} s | scan {scan_1:.2f} s on 1 process, "
                      f"{scan_n:.2f} s on {args.processes} | translator {translator:.2f} s with {collections} "
                      f"collections | microarch {microarch:.2f} s | readback {readback:.2f} s", flush=True)
    finally:
        pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
