"""Time a few GEMM configs of the three kernels side by side, on fit shapes only (device script).

    python3 bench/perfmodel_layout_probe.py --out probe.json [--reps 15] [--rounds 2]

Why: the perfmodel's fit rows come from sweeps of different days (nt 2026-11-29; nn and persistent
2026-12-01). They disagree on 16-bit wgmma tiles: nn (B row-major) measured up to 1.3x faster than nt
at equal configs, and nt's one-tile-per-program 128x256 tiles 18-40% slower per K-step than 256x128
where the persistent kernel (the same compiled loop) runs 128x256 best. Timing the same configs of
nt, nn and persistent in one process, interleaved, says whether those are properties of the kernels
or of the sweeps (docs/evidence/perfmodel-variants-h200-2026-12-01.md, eighth look).

Shapes: fit shapes of every variant (bench/perfmodel_validate.py `split` and `variant_split`).
Each timing as `measure` confirms a pick: median of --reps launches after an L2 flush, CUDA events.
Every (shape, dtype, kernel, config) is timed once per round, rounds in alternating order, so a
drift of the GPU's clocks shows as a difference between rounds.
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import perfmodel_validate as pv  # noqa: E402

from porter.perfmodel.gemm import GemmConfig  # noqa: E402

SHAPES = ((2048, 8192, 8192), (512, 8192, 28672), (512, 4096, 16384))
# (dtype, kernels, configs as BMxBNxBK wW sS)
PLAN = (
    ("bf16", ("nt", "nn", "persistent"),
     ("128x256x64 w8 s4", "256x128x64 w8 s4", "128x256x64 w8 s3", "256x128x64 w8 s3",
      "128x128x64 w8 s5", "128x128x64 w8 s3", "128x128x64 w4 s4")),
    ("fp8", ("nt", "persistent"),
     ("128x256x128 w8 s4", "256x128x128 w8 s4", "128x128x128 w8 s3", "128x128x128 w4 s3",
      "128x256x64 w8 s5", "256x128x64 w8 s5")),
)


def _config(label: str) -> GemmConfig:
    tile, w, s = label.split()
    bm, bn, bk = (int(x) for x in tile.split("x"))
    return GemmConfig(bm, bn, bk, group_m=8, num_warps=int(w[1:]), num_stages=int(s[1:]))


def _gpu_state() -> str:
    q = "clocks.sm,clocks.max.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    r = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True, text=True)
    return r.stdout.strip() or r.stderr.strip()


def main() -> None:
    import torch

    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--reps", type=int, default=pv.CONFIRM_REPS)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    for m, n, k in SHAPES:  # fit shapes only, in every variant's split
        i = next(i for i, sh in enumerate(pv.SHAPES) if sh[1:] == (m, n, k))
        assert pv.split(i) == "fit" and pv.variant_split(i) == "fit", (m, n, k)
    import triton

    props = torch.cuda.get_device_properties(0)
    out = {"meta": {"gpu": props.name, "torch": torch.__version__, "triton": triton.__version__,
                    "date": time.strftime("%Y-%m-%d"), "reps": a.reps, "command": " ".join(sys.argv),
                    "gpu_state_start": _gpu_state()}, "results": []}
    flush = torch.empty(128 << 20, dtype=torch.uint8, device="cuda")
    jobs = [(dt, v, m, n, k, lbl) for dt, kernels, labels in PLAN for (m, n, k) in SHAPES
            for v in kernels for lbl in labels]
    operands = {}
    compiled = {}
    times: dict[tuple, list[float]] = {}
    for rnd in range(a.rounds):
        for job in (jobs if rnd % 2 == 0 else jobs[::-1]):
            dt, v, m, n, k, lbl = job
            key = (dt, v, m, n, k)
            if key not in operands:
                operands.clear()  # one shape's operands at a time
                operands[key] = pv._operands(torch, dt, m, n, k, "cuda", "nn" if v == "nn" else "nt")
            x, w, c = operands[key]
            cfg = _config(lbl)
            kern = pv.kernel_of(v)
            programs = pv._programs(torch, v)
            launch = functools.partial(pv._launch, kern, cfg, x, w, c, m, n, k, programs=programs)
            handle = launch()
            if (dt, v, lbl) not in compiled:
                compiled[(dt, v, lbl)] = {"registers": getattr(handle, "n_regs", None),
                                          "spills": getattr(handle, "n_spills", None),
                                          "shared": getattr(getattr(handle, "metadata", None), "shared", None)}
            t = pv._time(torch, launch, flush, a.reps)
            times.setdefault(job, []).append(t)
        out["meta"][f"gpu_state_after_round_{rnd}"] = _gpu_state()
        print(f"round {rnd} done", flush=True)
    for (dt, v, m, n, k, lbl), ts in times.items():
        out["results"].append({"dtype": dt, "variant": v, "m": m, "n": n, "k": k, "config": lbl, "seconds": ts,
                               "tflops": [2.0 * m * n * k / t / 1e12 for t in ts], **compiled[(dt, v, lbl)]})
        print(f"{dt:<5}{v:<11}{m}x{n}x{k:<7}{lbl:<20}" + " ".join(f"{2.0 * m * n * k / t / 1e12:7.1f}" for t in ts)
              + f"  regs {compiled[(dt, v, lbl)]['registers']}", flush=True)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
