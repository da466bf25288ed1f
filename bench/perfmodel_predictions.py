"""The GEMM perfmodel's predicted times (no measurement read) over every shape it has been or will be measured on, to
check that a change moves only what it should (a frozen model's other predictions stay bit for bit).

    python bench/perfmodel_predictions.py --out before.json      # on the commit before the change
    python bench/perfmodel_predictions.py --diff before.json     # after it: what changed, by variant, dtype and N

Shapes: bench/perfmodel_validate.py's SHAPES and every declared nn set (NN_SETS); every dtype of DTYPES; every variant
of VARIANTS (Triton 3.6.0, the H200 sweeps' release); candidates: measured_space on the H200. --diff also says, per
variant and N on / off 16, where fp16's predictions equal bf16's.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import perfmodel_validate as pv  # noqa: E402


def predictions() -> dict[str, list[float]]:
    from porter import hardware
    from porter.perfmodel.gemm import Candidates, Gemm, evaluate

    dev = hardware.get("h200")
    shapes = sorted({sh[1:] for sh in pv.SHAPES} | {sh[1:] for fn in pv.NN_SETS.values() for _, sh in fn()})
    out = {}
    for dt in pv.DTYPES:
        space = pv.measured_space("h200", dt)
        for variant in pv.VARIANTS:
            traits = pv.traits_of(variant, "3.6.0")
            cands = Candidates(space, dev, dt, traits)
            for m, n, k in shapes:
                out[f"{variant}/{dt}/{m}x{n}x{k}"] = [float(t) for t in evaluate(Gemm(m, n, k, dt, traits), cands)[0]]
    return out


def _group(key: str) -> tuple[str, str, str]:
    variant, dt, shape = key.split("/")
    return variant, dt, "N off 16" if int(shape.split("x")[1]) % 16 else "N on 16"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="write the predictions here")
    p.add_argument("--diff", help="predictions written before: count what changed")
    a = p.parse_args()
    now = predictions()
    if a.out:
        Path(a.out).write_text(json.dumps(now) + "\n")
    if a.diff:
        before = json.loads(Path(a.diff).read_text())
        changed = Counter((*_group(k), "same" if before.get(k) == v else "changed") for k, v in now.items())
        for (variant, dt, n16, what), count in sorted(changed.items()):
            print(f"{variant:<11} {dt:<5} {n16:<9} {what:<8} {count}")
        print(f"{sum(c for g, c in changed.items() if g[3] == 'changed')} of {len(now)} (shape, dtype, variant) "
              "prediction arrays changed")
    like = Counter((*_group(k)[::2], now[k] == now[k.replace("/fp16/", "/bf16/")])
                   for k in now if "/fp16/" in k)
    for (variant, n16, same), count in sorted(like.items()):
        print(f"fp16 {'==' if same else '!='} bf16: {variant:<11} {n16:<9} {count}")


if __name__ == "__main__":
    main()
