"""porter's fixed cost per command: what a PR bot or a session pays on every step (issue 14).

Prints the median wall time of N runs (a fresh process each) of:
  porter port ONE -o OUT --no-verify   (a tree of one .cu file, fixtures/reduce/reduce.cu)
  porter rules
  porter explain WAVE001
Targets: port under 2 s; rules and explain under 0.5 s. Run it on a quiet machine:
    python bench/fixed_cost.py [--runs 7]
The first run of each command may fill porter's disk cache (porter.diskcache); it is counted
separately as "cold" and left out of the median.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PORTER = [str(Path(sys.executable).with_name("porter"))]  # the console script, as a user runs it


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="porter-fixed-cost-"))
    try:
        src = work / "src"
        src.mkdir()
        shutil.copy(ROOT / "fixtures" / "reduce" / "reduce.cu", src / "reduce.cu")
        commands = {
            "port --no-verify (1 file)": lambda i: PORTER + ["port", str(src), "-o", str(work / f"out{i}"), "--no-verify"],
            "rules": lambda i: PORTER + ["rules"],
            "explain WAVE001": lambda i: PORTER + ["explain", "WAVE001"],
        }
        targets = {"port --no-verify (1 file)": 2.0, "rules": 0.5, "explain WAVE001": 0.5}
        print(f"{'command':28} {'cold s':>7} {'median s':>9} {'min s':>6} {'target s':>9}  runs={args.runs}")
        for name, cmd in commands.items():
            cold = timed(cmd(-1))
            times = [timed(cmd(i)) for i in range(args.runs)]
            med = statistics.median(times)
            flag = "ok" if med < targets[name] else "OVER"
            print(f"{name:28} {cold:7.2f} {med:9.2f} {min(times):6.2f} {targets[name]:9.1f}  {flag}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
