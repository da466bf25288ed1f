"""Byte-identity check of the C++ translation path: one porter against another on the same trees.

    python bench/translate_identity.py --reference /work/main/.venv/bin/python [--processes 2]
                                       [--tree DIR ...] [--files 300] [--triton DIR ...] [--keep DIR]

Runs the translator, then the microarch and shim agents (each on the bytes the previous one left,
as `porter port`'s graph chains them; porter.rules.run_on_files, and the shim agent's per-file
rules), over bench/translate.py's generated corpus (--files, seed 7) and over every C/C++/CUDA
file of each --tree (default: cuda-samples' Samples and rodinia under $PORTER_CORPUS, e.g.
PORTER_CORPUS=/work/src), with the --reference interpreter (another checkout's venv, e.g.
main's; in one process) and with this checkout's porter (this interpreter) twice: its translator
pass in one process, then on --processes worker processes, as bench/translate.py times it. For every file it records
the bytes after each agent and every finding (rule, severity, message, location, snippet, agent,
fixable, fixed, detail) and every patch's edits; it then prints, per tree and agent, the files,
findings and patches compared and each difference, and exits 1 when there is any. With --triton
DIR, the .py files of DIR too, as bench/translate.py's Triton figure runs them (scan, translator,
microarch, shim; in one process).

The real trees' code is read in place and never written or committed; --keep DIR keeps the JSON
records there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENTS = ("translator", "microarch", "shim")
DEFAULT_TREES = ("NVIDIA+cuda-samples/Samples", "yuhc+gpu-rodinia")


def record(trees: list[Path], processes: int) -> dict:
    """Every file's bytes after each agent and every finding and patch, per tree and agent (this porter)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import translate as bench

    from porter import cluster
    from porter.agents.shim import node as shim_node
    from porter.rules import RuleContext, run_on_files, stages
    from porter.state import FileKind, FileRecord

    pool = cluster.LocalDispatcher(processes=processes, min_items=2, min_bytes=0) if processes > 1 else None
    out: dict = {}
    try:
        for root in trees:
            if root.name.endswith(TRITON_MARK):
                out.update(_record_triton(Path(str(root).removesuffix(TRITON_MARK))))
                continue
            data = {p.relative_to(root).as_posix(): p.read_bytes() for p in bench.sources(root)}
            records = [FileRecord(path=rel, kind=FileKind.cuda if bench.lang_for(rel) == "cuda" else FileKind.cpp)
                       for rel in data]
            for agent in AGENTS:
                began = time.perf_counter()
                if agent == "shim":  # as agents/shim/node.py runs its C/C++ rules (before the compat header)
                    ctx, found, patches = RuleContext(), [], []
                    for rel in data:
                        hits, include = shim_node._shim_file(ctx, (rel, data[rel]))
                        found += hits
                        patches += [include] if include else []
                else:
                    with cluster.using(pool if agent == "translator" else None):
                        found, patches = run_on_files(agent, records, data.__getitem__, RuleContext(), stages(agent))
                for patch in patches:
                    data[patch.path] = patch.apply_to(data[patch.path])
                out[f"{root}:{agent}"] = {
                    "findings": [f.model_dump(mode="json") for f in found],
                    "patches": [[p.path, p.agent, p.rule, p.reason, p.base_hash, [list(e) for e in p.edits]]
                                for p in patches],
                    "files": {rel: hashlib.sha256(text).hexdigest() for rel, text in data.items()},
                    "seconds": time.perf_counter() - began,
                }
    finally:
        if pool is not None:
            pool.close()
    return out


TRITON_MARK = "#triton"  # a --triton tree among the roots


def _record_triton(root: Path) -> dict:
    """Every .py file under `root` as bench/translate.py's Triton figure treats it: the scan's
    classification, then the translator's, microarch's and shim's rules, each on the bytes the
    previous one left."""
    from porter.rules import RuleContext, run_on_files
    from porter.scan import classify
    from porter.state import FileRecord

    data = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py")) if p.is_file()}
    records = []
    for rel, text in data.items():
        kind, note = classify(rel, text)
        records.append(FileRecord(path=rel, kind=kind, parsed=not note, note=note))
    out = {}
    for agent in AGENTS:
        began = time.perf_counter()
        found, patches = run_on_files(agent, records, data.__getitem__, RuleContext())
        for patch in patches:
            data[patch.path] = patch.apply_to(data[patch.path])
        out[f"{root} (Triton):{agent}"] = {
            "findings": [f.model_dump(mode="json") for f in found],
            "patches": [[p.path, p.agent, p.rule, p.reason, p.base_hash, [list(e) for e in p.edits]] for p in patches],
            "files": {rel: hashlib.sha256(text).hexdigest() for rel, text in data.items()},
            "seconds": time.perf_counter() - began,
        }
    return out


def compare(mine: dict, ref: dict) -> int:
    """Print what differs between two records; the number of differences."""
    bad = 0
    for key in sorted(set(mine) | set(ref)):
        a, b = mine.get(key), ref.get(key)
        if a is None or b is None:
            print(f"{key}: only in {'the reference' if a is None else 'this checkout'}")
            bad += 1
            continue
        diffs = []
        files = sorted(set(a["files"]) | set(b["files"]))
        diffs += [f"output of {rel} differs" for rel in files if a["files"].get(rel) != b["files"].get(rel)]
        fa = {json.dumps(f, sort_keys=True) for f in a["findings"]}
        fb = {json.dumps(f, sort_keys=True) for f in b["findings"]}
        diffs += [f"finding only here: {f}" for f in sorted(fa - fb)]
        diffs += [f"finding only in the reference: {f}" for f in sorted(fb - fa)]
        if a["findings"] != b["findings"] and fa == fb:
            diffs.append("the same findings in another order (or repeated)")
        pa = {json.dumps(p) for p in a["patches"]}
        pb = {json.dumps(p) for p in b["patches"]}
        diffs += [f"patch only here: {p[:300]}" for p in sorted(pa - pb)]
        diffs += [f"patch only in the reference: {p[:300]}" for p in sorted(pb - pa)]
        if a["patches"] != b["patches"] and pa == pb:
            diffs.append("the same patches in another order (or repeated)")
        rules = sorted({f["rule"] for f in a["findings"]})
        print(f"{key}: {len(files)} files, {len(a['findings'])} findings ({', '.join(rules) or 'none'}), "
              f"{len(a['patches'])} patches: {'IDENTICAL' if not diffs else f'{len(diffs)} DIFFERENCES'} "
              f"({a['seconds']:.2f} s here, {b['seconds']:.2f} s reference)")
        for line in diffs[:20]:
            print(f"    {line}")
        bad += len(diffs)
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="the other porter's Python (e.g. /work/main/.venv/bin/python)")
    ap.add_argument("--processes", type=int, default=2, help="worker processes for this checkout's translator pass")
    ap.add_argument("--tree", type=Path, action="append", help="a real C/C++/CUDA tree (repeatable; default: "
                    f"{' and '.join(DEFAULT_TREES)} under $PORTER_CORPUS)")
    ap.add_argument("--files", type=int, default=300, help="generated files (bench/translate.py's corpus); 0: none")
    ap.add_argument("--triton", type=Path, action="append", default=[],
                    help="a tree of real Triton code (repeatable), as bench/translate.py's Triton figure runs it")
    ap.add_argument("--keep", type=Path, help="a folder to keep both JSON records in")
    ap.add_argument("--record", type=Path, help=argparse.SUPPRESS)  # a child: write this porter's record
    ap.add_argument("--roots", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.record is not None:
        args.record.write_text(json.dumps(record([Path(r) for r in json.loads(args.roots)], args.processes)))
        return 0
    if not args.reference:
        raise SystemExit("--reference: the Python of the porter to compare against (e.g. /work/main/.venv/bin/python)")
    trees = args.tree
    if trees is None:
        corpus_root = os.environ.get("PORTER_CORPUS")
        if not corpus_root:
            raise SystemExit("no --tree and no PORTER_CORPUS: point PORTER_CORPUS at the folder holding "
                             f"{' and '.join(DEFAULT_TREES)} (e.g. /work/src), or give --tree DIR")
        trees = [Path(corpus_root) / t for t in DEFAULT_TREES]
    for tree in [*trees, *args.triton]:
        if not tree.is_dir():
            raise SystemExit(f"{tree} is not a directory")
    with tempfile.TemporaryDirectory(prefix="porter-identity-") as tmp:
        roots = [str(t.resolve()) for t in trees] + [str(t.resolve()) + TRITON_MARK for t in args.triton]
        if args.files:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            import translate as bench

            generated = Path(tmp) / "generated"
            generated.mkdir()
            bench.make_corpus(generated, args.files, 7)
            roots.insert(0, str(generated))
        keep = args.keep or Path(tmp)
        keep.mkdir(parents=True, exist_ok=True)
        paths = {}
        runs = [("reference", args.reference, 1), ("here-1", sys.executable, 1)]
        if args.processes > 1:
            runs.append((f"here-{args.processes}", sys.executable, args.processes))
        for who, python, processes in runs:
            paths[who] = keep / f"identity-{who}.json"
            subprocess.run([python, __file__, "--record", str(paths[who]), "--roots", json.dumps(roots),
                            "--processes", str(processes)], check=True)
        reference = json.loads(paths["reference"].read_text())
        bad = 0
        for who, _, processes in runs[1:]:
            print(f"this checkout, translator on {processes} process{'es' if processes > 1 else ''}, "
                  "against the reference:")
            bad += compare(json.loads(paths[who].read_text()), reference)
    print(f"{'IDENTICAL' if not bad else f'{bad} DIFFERENCES'}: this checkout ({sys.executable}, translator on "
          f"1{f' and {args.processes}' if args.processes > 1 else ''} processes) against {args.reference}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
