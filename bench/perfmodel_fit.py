"""Fit the perfmodel's unpublished constants for one device on the "fit" third of a measurement.

    python bench/perfmodel_fit.py bench/results/perfmodel-h200-raw-2026-11-29-run2.json [--trials 800] [--seed 0]

The datasheet numbers (peaks, bandwidths, sizes) are not fitted. What is: the [model] values no
datasheet gives (L2 bandwidth device-wide and per CU, loaded DRAM latency, the share of the
matrix peak a Triton main loop sustains and of that on the mma.sync fallback, per-iteration
overhead). Random search in log space, then coordinate refinement, maximising the geometric
mean of pick/best throughput with a penalty per pick under 80%, over the shapes SHAPES marks
"fit" only; the held-out two thirds are never read. Prints the values to put in the device's
TOML (with this command as their source) and the fit-set score before and after.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from porter import hardware  # noqa: E402
from porter.hardware import Sourced  # noqa: E402
from porter.perfmodel.gemm import Candidates, Gemm, evaluate  # noqa: E402
from porter.perfmodel.select import space  # noqa: E402

# name: (low, high) searched log-uniformly
RANGES = {"l2_tbps": (4.0, 30.0), "l2_bytes_per_clk_per_cu": (24.0, 256.0), "dram_latency_ns": (300.0, 3000.0),
          "matrix_efficiency": (0.4, 1.0), "fallback_matrix_efficiency": (0.2, 1.0),
          "iteration_overhead_clk": (10.0, 2000.0)}


def load_fit(paths: list[str]) -> tuple[str, list[dict]]:
    runs, meta = {}, {}
    for p in paths:
        raw = json.loads(Path(p).read_text())
        runs.update(raw["results"])
        meta = raw.get("meta", meta)
    return meta.get("device_model", "h200"), [r for r in runs.values() if r["split"] == "fit"]


def with_params(dev, params: dict[str, float]):
    model = dev.model.model_copy(update={k: Sourced(value=v, source="fit") for k, v in params.items()})
    return dev.model_copy(update={"model": model})


def objective(dev, rows: list[dict], configs: dict[str, list]) -> tuple[float, float, int]:
    """(score to maximise, geomean pick/best, picks under 80%) on rows."""
    cands = {dt: Candidates(cfgs, dev, dt) for dt, cfgs in configs.items()}
    logs, under = [], 0
    for r in rows:
        predicted, _ = evaluate(Gemm(r["m"], r["n"], r["k"], r["dtype"]), cands[r["dtype"]])
        measured = r["_seconds"]
        ratio = float(measured.min() / measured[int(np.argmin(predicted))])
        logs.append(math.log(ratio))
        under += ratio < 0.8
    geo = math.exp(sum(logs) / len(logs))
    return sum(logs) / len(logs) - 0.02 * under, geo, under


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--trials", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    device, rows = load_fit(args.raw)
    dev = hardware.get(device)
    configs = {}
    for r in rows:
        by_label = {c.label(): c for c in space(dev, r["dtype"])}
        configs.setdefault(r["dtype"], [by_label[lbl] for lbl in r["configs"]])
        seconds = np.asarray(r["seconds"], dtype=float)
        for label, t in r.get("confirm", {}).items():  # confirmed timings, as the score uses
            seconds[r["configs"].index(label)] = t
        r["_seconds"] = seconds
    start = {k: getattr(dev.model, k).value for k in RANGES}
    best_params, best = start, objective(dev, rows, configs)
    print(f"{len(rows)} fit pairs; as shipped: geomean {best[1]:.3f}, {best[2]} under 80%")
    rng = random.Random(args.seed)
    for _ in range(args.trials):
        trial = {k: math.exp(rng.uniform(math.log(lo), math.log(hi))) for k, (lo, hi) in RANGES.items()}
        score = objective(with_params(dev, trial), rows, configs)
        if score[0] > best[0]:
            best_params, best = trial, score
    for _ in range(3):  # coordinate refinement around the best
        for k, (lo, hi) in RANGES.items():
            for f in (0.6, 0.8, 0.9, 1.1, 1.25, 1.6):
                trial = dict(best_params, **{k: min(hi, max(lo, best_params[k] * f))})
                score = objective(with_params(dev, trial), rows, configs)
                if score[0] > best[0]:
                    best_params, best = trial, score
    print(f"fitted: geomean {best[1]:.3f}, {best[2]} under 80%")
    for k, v in best_params.items():
        print(f"{k} = {v:.4g}")


if __name__ == "__main__":
    main()
