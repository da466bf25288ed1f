"""Score the GEMM perfmodel on the FIT split only (exploration helper; never prints held-out or unseen rows).

    python bench/perfmodel_fitscore.py [--worst N] [--variant nn --dtype fp8]

The split rules are bench/perfmodel_validate.py's `row_split`: nt as recorded (`split`, 2026-11-29 run),
persistent by `variant_split`, nn as recorded (from the tenth look on, all its 2026-12-01 rows are fit; from the
eleventh look on, the tenth look's unseen rows too; from the twelfth on, the eleventh look's unseen-11 rows
too; from the thirteenth on, the twelfth look's unseen-12 rows too; from the fourteenth on, the thirteenth look's
unseen-13 rows and the first nn fp16 look's rows too; from the fifteenth on, the fourteenth look's unseen-14 rows
too; after the fifteenth look, its unseen-15 rows too); every other row recorded "unseen" is skipped.
Timings: the sweep's medians, replaced by the confirmed (15-repetition) ones where taken, as `score`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import perfmodel_validate as pv  # noqa: E402

RAW = ("perfmodel-h200-raw-2026-11-29-run3.json", "perfmodel-h200-raw-nn-2026-12-01.json",
       "perfmodel-h200-raw-persistent-2026-12-01.json", "perfmodel-h200-raw-nn-tenth-2026-12-01.json",
       "perfmodel-h200-raw-nn-eleventh-2026-12-01.json", "perfmodel-h200-raw-nn-twelfth-2026-12-01.json",
       "perfmodel-h200-raw-nn-thirteenth-2026-12-01.json", "perfmodel-h200-raw-nn-fp16-first-2026-12-01.json",
       "perfmodel-h200-raw-nn-fourteenth-2026-12-01.json", "perfmodel-h200-raw-nn-fifteenth-2026-12-02.json")


def fit_rows() -> list[dict]:
    rows = []
    for name in RAW:
        raw = json.loads((ROOT / "bench" / "results" / name).read_text())
        triton = raw.get("meta", {}).get("triton")
        for key, r in raw["results"].items():
            variant = r.get("variant", "nt")
            if pv.row_split(variant, r["split"], r["m"], r["n"], r["k"]) != "fit":
                continue
            measured = np.asarray(r["seconds"], dtype=float)
            for label, t in r.get("confirm", {}).items():
                measured[r["configs"].index(label)] = t
            rows.append({"key": key, "variant": variant, "dtype": r["dtype"], "m": r["m"], "n": r["n"],
                         "k": r["k"], "configs": r["configs"], "measured": measured, "triton": triton})
    return rows


def score(rows: list[dict]) -> list[dict]:
    from porter import hardware
    from porter.perfmodel.gemm import Candidates, Gemm, evaluate
    from porter.perfmodel.select import space

    dev = hardware.get("h200")
    cache: dict = {}
    out = []
    for r in rows:
        traits = pv.traits_of(r["variant"], r["triton"])
        ck = (r["dtype"], traits, tuple(r["configs"]))
        if ck not in cache:
            by_label = {c.label(): c for c in space(dev, r["dtype"])}
            cache[ck] = Candidates([by_label[lbl] for lbl in r["configs"]], dev, r["dtype"], traits)
        cands = cache[ck]
        pred, _ = evaluate(Gemm(r["m"], r["n"], r["k"], r["dtype"], traits), cands)
        ok = np.isfinite(r["measured"]) & np.isfinite(pred)
        pick = int(np.argmin(np.where(ok, pred, np.inf)))
        best = int(np.argmin(r["measured"]))
        out.append({**r, "pick": r["configs"][pick], "best": r["configs"][best],
                    "ratio": float(r["measured"][best] / r["measured"][pick]),
                    "pred_pick": float(pred[pick]), "pred_best": float(pred[best]),
                    "best_rank": int((pred[ok] < pred[best]).sum())})
    return out


def table(scored: list[dict]) -> dict:
    res = {}
    for v in ("nt", "nn", "persistent"):
        for dt in ("bf16", "fp16", "fp8"):
            sel = [x["ratio"] for x in scored if x["variant"] == v and x["dtype"] == dt]
            if sel:
                res[f"{v} {dt}"] = (len(sel), math.exp(np.mean(np.log(sel))), min(sel))
    allr = [x["ratio"] for x in scored]
    res["all fit"] = (len(allr), math.exp(np.mean(np.log(allr))), min(allr))
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--worst", type=int, default=10)
    p.add_argument("--variant")
    p.add_argument("--dtype")
    p.add_argument("--json", help="write the fit table and fit rows (key, pick, best, ratio) here")
    a = p.parse_args()
    scored = score(fit_rows())
    if a.json:
        Path(a.json).write_text(json.dumps(
            {"split": "fit", "table": {k: {"pairs": n, "geomean": g, "worst": w} for k, (n, g, w) in table(scored).items()},
             "rows": [{k: x[k] for k in ("key", "variant", "dtype", "pick", "best", "ratio")} for x in scored],
             "command": " ".join(sys.argv)}, indent=1) + "\n")
    for name, (n, g, w) in table(scored).items():
        print(f"{name:<16} {n:>3} fit  geomean {g:.4f}  worst {w:.3f}")
    sel = [x for x in scored if (not a.variant or x["variant"] == a.variant) and (not a.dtype or x["dtype"] == a.dtype)]
    for x in sorted(sel, key=lambda x: x["ratio"])[:a.worst]:
        print(f"  {x['variant']:<4} {x['dtype']:<4} {x['m']}x{x['n']}x{x['k']:<7} {x['ratio']:.3f} pick {x['pick']:<26} "
              f"best {x['best']:<26} best's model rank {x['best_rank']} pred {x['pred_best'] / x['pred_pick']:.2f}x")


if __name__ == "__main__":
    main()
