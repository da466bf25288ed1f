"""How long the perfmodel takes to choose a GEMM config: the `porter tune` path, per shape.

    python bench/perfmodel_select.py [--arch gfx950,h200] [--repeat 3]

For each device and dtype: the one-off build of the candidate table (per process), then
select() on every shape of bench/perfmodel_validate.py's SHAPES, best of --repeat, printing the
mean, the median and the worst time per shape against the target of 1 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from perfmodel_validate import SHAPES  # noqa: E402

from porter import hardware  # noqa: E402
from porter.perfmodel.select import candidates, select  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="gfx950,h200")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'device':<8} {'dtype':<5} {'configs':>7} {'table ms':>8} {'mean ms':>8} {'median ms':>9} "
          f"{'worst ms':>8}  (per shape, {len(SHAPES)} shapes)")
    worst_all = 0.0
    for arch in args.arch.split(","):
        dev = hardware.get(arch)
        for dtype in ("bf16", "fp16", "fp8"):
            t0 = time.perf_counter()
            table = candidates(dev.name, dtype)
            built = time.perf_counter() - t0
            per_shape = []
            for _, m, n, k in SHAPES:
                best = min(_timed(lambda: select("matmul", (m, n, k), dtype, dev.name)) for _ in range(args.repeat))
                per_shape.append(best)
            worst_all = max(worst_all, max(per_shape))
            print(f"{dev.name:<8} {dtype:<5} {len(table):>7} {built * 1e3:>8.1f} {statistics.fmean(per_shape) * 1e3:>8.3f} "
                  f"{statistics.median(per_shape) * 1e3:>9.3f} {max(per_shape) * 1e3:>8.3f}")
    print(f"worst per-shape selection: {worst_all * 1e3:.3f} ms (target: under 1 ms)")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
