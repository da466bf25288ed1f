"""The translator's rule map alone, as `porter port` runs it: wall time, the driver's CPU and its workers'.

    python bench/translate_map.py TREE [PROCESSES]     (e.g. $PORTER_CORPUS/NVIDIA+cuda-samples/Samples 2)

porter.rules.run_on_files("translator") over every C/C++/CUDA file of TREE (read in place, never
written) through a porter.cluster.LocalDispatcher of PROCESSES processes (default 2), started and
warmed before the clock as bench/translate.py does; five runs, each parsing afresh. No patch is
applied and no file written: what the box's file system costs (which moves by the minute on a
shared machine) is out of these figures. Workers' CPU from /proc/PID/schedstat (Linux).
"""
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import translate as T  # noqa: E402  (bench/translate.py: sources, lang_for, _workers_cpu)

from porter import cluster  # noqa: E402
from porter.rules import RuleContext, run_on_files  # noqa: E402
from porter.state import FileKind, FileRecord  # noqa: E402
from porter.syntax import forget  # noqa: E402


def run(src: Path, dispatcher) -> tuple[float, float, float]:
    """One map over `src`: its wall time, this process's CPU in it, its workers' CPU in it."""
    forget()  # each run parses afresh, as a fresh process does
    data = {p.relative_to(src).as_posix(): p.read_bytes() for p in T.sources(src)}
    records = [FileRecord(path=rel, kind=FileKind.cuda if T.lang_for(rel) == "cuda" else FileKind.cpp) for rel in data]
    w0, c0, t0 = T._workers_cpu(dispatcher), time.process_time(), time.perf_counter()
    with cluster.using(dispatcher):
        run_on_files("translator", records, data.__getitem__, RuleContext())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall, cpu, (T._workers_cpu(dispatcher) - w0) if w0 is not None else 0.0


def main() -> int:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
    procs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    if len(sys.argv) < 2 or not corpus.is_dir():
        raise SystemExit(f"{corpus}: not a directory (a real tree, e.g. $PORTER_CORPUS/NVIDIA+cuda-samples/Samples)")
    root = Path(tempfile.mkdtemp())
    warm = root / "warm"
    warm.mkdir()
    for p in T.sources(corpus)[:8]:
        shutil.copy(p, warm / p.name)
    dispatcher = cluster.LocalDispatcher(processes=procs, min_items=2, min_bytes=0)
    try:
        run(warm, dispatcher)  # the warm-up map forced onto the workers, as bench/translate.py does
        dispatcher.min_items, dispatcher.min_bytes = 8, 1 << 20
        runs = [run(corpus, dispatcher) for _ in range(5)]
    finally:
        dispatcher.close()
        shutil.rmtree(root)
    cpu, workers = sorted(r[1] for r in runs), sorted(r[2] for r in runs)
    print(f"{procs} proc: map wall best {min(runs)[0]:.3f} s (all {' '.join(f'{r[0]:.3f}' for r in runs)}); "
          f"driver CPU min {cpu[0]:.3f} med {cpu[2]:.3f}; workers CPU min {workers[0]:.3f} med {workers[2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
