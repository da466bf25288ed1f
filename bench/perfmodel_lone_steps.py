"""The K-step of a lone nn workgroup per SM, measured on the GPU: a characterization table for the perfmodel.

    # on the H200 (torch, triton 3.6; docs/evidence/perfmodel_lone_steps_h200.sh wraps it):
    python bench/perfmodel_lone_steps.py measure --out $OUT/lone.json [--deadline S]
    # anywhere: what measure would time, and its estimated seconds on the H200:
    python bench/perfmodel_lone_steps.py measure --dry-run
    # anywhere: the model's table from a committed raw file:
    python bench/perfmodel_lone_steps.py table bench/results/perfmodel-h200-lone-steps-<date>.json

measure: bench/perfmodel_validate.py's nn kernel (`kernel_of("nn")`), its operands, launch, timing (CUDA events, an
L2 flush and a spin kernel before each launch, the median) and its compile-in-workers pattern, on synthetic shapes
that give every SM exactly r workgroups of one config: M = BM, N = 132 x BN x r (one row of tiles; each workgroup
its own B columns), K in KS. The time per K-step of the SM is the slope over K,
(t(K2) - t(K1)) / ((K2 - K1) / BK): the prologue, the epilogue and the launch cancel. r = 1 is the lone K-step;
r = 2, 3 give the cost of each further co-resident workgroup. r = 1 is also timed on a quarter of the SMs
(33 workgroups), where B's DRAM traffic is a quarter: a wide tile's lone step at 132 workgroups can be bound by
DRAM bandwidth rather than by the workgroup. The configs are those of `measured_space` with BM 16 and 32 (Triton 3.6
runs them on mma.sync at N on 16: fp8's 184 mma.sync configs in the committed compile facts, and the 16-bit ones),
in fp8, bf16, fp16, then BM 64 (wgmma), in that order, so that a deadline cuts the last. All shapes share one Triton
specialisation (M, N, K and the strides on 16), which the workers compile first. B and C are one allocation per
dtype (the largest N and K), sliced, so that the row strides stay on 16.

table: reads the raw file and writes porter/perfmodel/data/triton-3.6-sm90a-nn-lone.json, per dtype and config the
lone K-step and the marginal per further workgroup in clk at the model's clock ([spec] clock_mhz of the device),
with the provenance (GPU, Triton, date, command, the SM clock measured during the run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from perfmodel_validate import _compile_worker, _launch, _operands, _time, kernel_of, measured_space  # noqa: E402

SMS = 132  # the H200's SMs (checked against the device at run time)
KS = (4096, 16384)  # the two K of the slope
K_MID = 8192  # r = 1 is timed here too: the slope's linearity check
RS = (1, 2, 3)  # workgroups per SM on the full grid
QUARTER = 33  # r = 1 on a quarter of the SMs
REPS = 7
GROUPS = (("fp8", (16, 32)), ("bf16", (16, 32)), ("fp16", (16, 32)),
          ("fp8", (64,)), ("bf16", (64,)), ("fp16", (64,)))
SPEC = (256, 256, 256)  # a shape Triton specialises as every timed one (all on 16)
# The estimate (dry run): seconds per timed launch besides the kernel (the 128 MiB flush, the spin kernel, the
# launch), per compile on the device's 16 workers (2520 kernels in 192 s on the fifteenth look), and the setup.
LAUNCH_S = 110e-6
COMPILE_S = 192 / 2520
SETUP_S = 25.0
CLK_GUESS = 1.98e9  # the SM clock the fifteenth look ran at (nvidia-smi), for the estimate only
LONE_CLK_GUESS = 1500.0  # per K-step, for the estimate only
HBM_BPS = 4.8e12


def configs_of(dtype: str, bms: tuple[int, ...], device: str = "h200"):
    return [c for c in measured_space(device, dtype) if c.block_m in bms]


def points_of(sms: int = SMS) -> list[tuple[str, int, int, int]]:
    """(name, workgroups per SM, grid, K) in the order timed."""
    pts = [(f"r{r}", r, sms * r, k) for r in RS for k in KS]
    pts += [("r1", 1, sms, K_MID), ("quarter", 1, QUARTER, KS[0]), ("quarter", 1, QUARTER, KS[1])]
    return pts


def plan(sms: int = SMS) -> list[tuple[str, object]]:
    return [(dt, c) for dt, bms in GROUPS for c in configs_of(dt, bms)]


def _estimate_kernel_s(dtype: str, cfg, grid: int, r: int, k: int) -> float:
    a_b = 1 if dtype == "fp8" else 2
    steps = k / cfg.block_k
    compute = steps * LONE_CLK_GUESS * r / CLK_GUESS
    dram = grid * cfg.block_n * k * a_b / HBM_BPS
    return max(compute, dram) + 5e-6


def estimate(items, sms: int = SMS) -> dict:
    compile_s = len(items) * COMPILE_S
    timing_s = 0.0
    for dt, c in items:
        for _, r, grid, k in points_of(sms):
            timing_s += (REPS + 1) * (LAUNCH_S + _estimate_kernel_s(dt, c, grid, r, k))
    return {"configs": len(items), "timings": len(items) * len(points_of(sms)), "setup_s": SETUP_S,
            "compile_s": round(compile_s, 1), "timing_s": round(timing_s, 1),
            "total_s": round(SETUP_S + compile_s + timing_s, 1)}


def _sm_clock_hz(torch) -> float:
    """The SM clock as the GPU runs it now: a spin of known cycles timed by CUDA events."""
    cycles = 20_000_000
    torch.cuda._sleep(1_000_000)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    torch.cuda._sleep(cycles)
    e.record()
    torch.cuda.synchronize()
    return cycles / (s.elapsed_time(e) / 1e3)


def measure(args) -> None:
    import dataclasses
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    items = plan()
    if args.dry_run:
        from collections import Counter

        print(f"{len(items)} configs: " + ", ".join(f"{dt} BM{bm} {n}" for (dt, bm), n in
                                                    Counter((dt, c.block_m) for dt, c in items).items()))
        pts = points_of()
        print(f"{len(pts)} timings each ({REPS} reps): " + ", ".join(f"{n} grid {g} K {k}" for n, _, g, k in pts))
        big = max(((dt, c, g, k) for dt, c in items for _, _, g, k in pts),
                  key=lambda x: x[2] * x[1].block_n * x[3] * (1 if x[0] == "fp8" else 2))
        print(f"largest B: {big[0]} {big[1].label()} N {big[2] * big[1].block_n} K {big[3]}")
        print("estimate (H200):", json.dumps(estimate(items)))
        return
    import torch
    import triton

    started = time.monotonic()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if sms != SMS:
        raise SystemExit(f"this device has {sms} SMs; the plan is for {SMS}")
    out = Path(args.out)
    kernel = kernel_of("nn")
    data = {"meta": {"gpu": torch.cuda.get_device_properties(0).name, "sms": sms, "torch": torch.__version__,
                     "triton": triton.__version__, "reps": REPS, "ks": list(KS), "k_mid": K_MID, "rs": list(RS),
                     "quarter": QUARTER, "date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv),
                     "sm_clock_hz_start": _sm_clock_hz(torch)},
            "rows": []}
    os.environ.setdefault("TRITON_CACHE_DIR", "/tmp/tcache")
    t0 = time.monotonic()
    jobs = []
    for dt in dict.fromkeys(dt for dt, _ in GROUPS):
        cfgs = [dataclasses.asdict(c) for d, c in items if d == dt]
        jobs += [("nn", dt, SPEC, cfgs[i::args.workers]) for i in range(args.workers)]
    with ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as pool:
        rejected = sum(pool.map(_compile_worker, jobs))
    data["meta"]["compile_s"] = round(time.monotonic() - t0, 1)
    print(f"compiled {len(items)} kernels in {time.monotonic() - t0:.0f} s ({rejected} rejected)", flush=True)

    flush = torch.empty(128 << 20, dtype=torch.uint8, device="cuda")
    pts = points_of(sms)
    kmax = max(KS)
    t_timing = time.monotonic()
    operands = {}
    for dt, bms in GROUPS:
        if dt not in operands:  # one allocation per dtype, for the largest N and K of its configs
            mine = [c for d, c in items if d == dt]
            nmax = max(g * c.block_n for c in mine for _, _, g, _ in pts)
            operands[dt] = _operands(torch, dt, max(c.block_m for c in mine), nmax, kmax, "cuda", "nn")
        a, w, c_ = operands[dt]
        for cfg in [c for d, c in items if d == dt and c.block_m in bms]:
            if time.monotonic() - started > args.deadline:
                print(f"deadline reached before {dt} {cfg.label()}", flush=True)
                break
            row = {"dtype": dt, "config": cfg.label(), "bm": cfg.block_m, "bn": cfg.block_n, "bk": cfg.block_k,
                   "warps": cfg.num_warps, "stages": cfg.num_stages, "points": []}
            m = cfg.block_m
            try:
                # The first launch loads the module (from the workers' cache); no timed run pays for it.
                _launch(kernel, cfg, a[:m, :KS[0]], w[:KS[0], :SMS * cfg.block_n], c_[:m, :SMS * cfg.block_n],
                        m, SMS * cfg.block_n, KS[0])
                for name, r, grid, k in pts:
                    n = grid * cfg.block_n
                    av, wv, cv = a[:m, :k], w[:k, :n], c_[:m, :n]
                    t = _time(torch, lambda: _launch(kernel, cfg, av, wv, cv, m, n, k), flush, REPS)  # noqa: B023 - called here
                    row["points"].append({"name": name, "r": r, "grid": grid, "k": k, "seconds": t})
            except Exception as e:  # noqa: BLE001 - out of resources etc.: recorded, not fatal
                row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
                print(f"  {dt} {cfg.label()}: {row['error']}", flush=True)
            data["rows"].append(row)
        else:
            print(f"{dt} BM {bms}: timed, {time.monotonic() - started:.0f} s", flush=True)
            out.write_text(json.dumps(data) + "\n")
            continue
        break
    data["meta"]["timing_s"] = round(time.monotonic() - t_timing, 1)
    data["meta"]["sm_clock_hz_end"] = _sm_clock_hz(torch)
    data["meta"]["wall_s"] = round(time.monotonic() - started, 1)
    out.write_text(json.dumps(data) + "\n")
    print(f"wrote {out}: {len(data['rows'])} configs in {data['meta']['wall_s']} s", flush=True)


# ------------------------------------------------------------------------------------------- table

TABLE = ROOT / "porter" / "perfmodel" / "data" / "triton-3.6-sm90a-nn-lone.json"
# Where the r = 1 time at K 8192 is off the line through K 4096 and 16384 by more than this share, the lone step is the
# slope over K 8192 to 16384: on 2026-12-02 two configs' first timed launch (r = 1, K 4096) read slow, above their r = 2
# time at the same K (fp8 16x256x256 w4 s3: 180 us at K 4096, 146 us at K 8192).
LINEARITY_TOLERANCE = 0.1
COLUMNS = {
    "lone_clk": "the SM's K-step with one workgroup on each of the 132 SMs: the slope of the time over K "
                "(K 4096 to 16384) per K-step, in clk at the model's clock",
    "lone_quarter_clk": "the same with one workgroup on each of 33 SMs (a quarter of B's DRAM traffic)",
    "step2_clk": "the SM's K-step with two workgroups per SM (grid 264)",
    "step3_clk": "the SM's K-step with three workgroups per SM (grid 396)",
    "linearity": "the r = 1 time at K 8192 over the line through K 4096 and 16384 (1.0: the time is linear in K)",
}


def _label(row: dict) -> str:
    """The config as the compile tables name it: "BMxBNxBK wW sS"."""
    return f"{row['bm']}x{row['bn']}x{row['bk']} w{row['warps']} s{row['stages']}"


def steps_of(row: dict, clock_hz: float) -> dict[str, float] | None:
    """A raw row's table columns (None for a config that failed or was not timed at every point)."""
    if row.get("error"):
        return None
    t = {(p["name"], p["k"]): p["seconds"] for p in row["points"]}
    k1, k2 = KS
    if any((name, k) not in t for name in ("r1", "r2", "r3", "quarter") for k in (k1, k2)) or ("r1", K_MID) not in t:
        return None
    if not all(math.isfinite(v) and v > 0 for v in t.values()):
        return None
    per_step = (k2 - k1) / row["bk"]

    def slope(name):
        return (t[(name, k2)] - t[(name, k1)]) / per_step * clock_hz

    line = t[("r1", k1)] + (t[("r1", k2)] - t[("r1", k1)]) * (K_MID - k1) / (k2 - k1)
    linearity = t[("r1", K_MID)] / line
    lone = slope("r1")
    if abs(linearity - 1) > LINEARITY_TOLERANCE:
        lone = (t[("r1", k2)] - t[("r1", K_MID)]) / ((k2 - K_MID) / row["bk"]) * clock_hz
    return {"lone_clk": lone, "lone_quarter_clk": slope("quarter"), "step2_clk": slope("r2"),
            "step3_clk": slope("r3"), "linearity": linearity}


def table(args) -> None:
    from porter import hardware

    raw_path = Path(args.raw)
    raw = json.loads(raw_path.read_text())
    meta = raw["meta"]
    clock_hz = hardware.get(args.device).clock_hz
    configs: dict[str, dict[str, list[float]]] = {}
    skipped, off = [], []
    for row in raw["rows"]:
        cols = steps_of(row, clock_hz)
        if cols is None:
            skipped.append(f"{row['dtype']} {_label(row)}")
            continue
        if abs(cols["linearity"] - 1) > LINEARITY_TOLERANCE:
            off.append(f"{row['dtype']} {_label(row)}")
        configs.setdefault(row["dtype"], {})[_label(row)] = [round(cols[c], 4 if c == "linearity" else 1)
                                                           for c in COLUMNS]
    try:
        raw_name = str(raw_path.resolve().relative_to(ROOT))
    except ValueError:
        raw_name = str(raw_path)
    data = {"provenance": {
        "kernel": "bench/gemm_kernel.py gemm_nn_kernel (C = A @ B, B row-major), GROUP_M 8",
        "triton": meta["triton"], "gpu": meta["gpu"], "torch": meta["torch"], "date": meta["date"],
        "target": "sm_90a (the H200), N on a multiple of 16: M = BM, N = 132 x BN x r, K 4096 / 8192 / 16384, all "
                  "16-divisible (one Triton specialisation)",
        "measured": f"{raw_name}: {meta['command']} (docs/evidence/perfmodel_lone_steps_h200.sh); CUDA events, an "
                    f"L2 flush before each launch, the median of {meta['reps']}",
        "clock": f"clk = seconds x {clock_hz / 1e6:.0f} MHz ([spec] clock_mhz of porter/hardware/data/"
                 f"{args.device}.toml, the clock every term of the model counts in); the SM ran at "
                 f"{meta['sm_clock_hz_start'] / 1e6:.0f} / {meta['sm_clock_hz_end'] / 1e6:.0f} MHz "
                 "(start / end of the timing, a spin kernel's cycles over CUDA events)",
        "columns": COLUMNS,
        "left_out": "configs that failed or were not timed at every point: " + (", ".join(skipped) or "none"),
        "off_the_line": f"lone_clk over K 8192 to 16384 (r = 1 at K 8192 off the line by more than "
                        f"{LINEARITY_TOLERANCE:.0%}): " + (", ".join(off) or "none"),
        "command": f"python bench/perfmodel_lone_steps.py table {raw_name}",
    }, "columns": list(COLUMNS), "configs": configs}
    out = Path(args.out) if args.out else TABLE
    lines = ["{", f'"provenance": {json.dumps(data["provenance"], indent=1)},',
             f'"columns": {json.dumps(data["columns"])},', '"configs": {']
    dts = sorted(configs)
    for i, dt in enumerate(dts):
        rows = sorted(configs[dt].items())
        lines.append(f'"{dt}": {{')
        lines += [f'  "{k}": {json.dumps(v)}' + ("," if j < len(rows) - 1 else "") for j, (k, v) in enumerate(rows)]
        lines.append("}" + ("," if i < len(dts) - 1 else ""))
    lines += ["}", "}"]
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}: " + ", ".join(f"{dt} {len(configs[dt])}" for dt in dts) + f" configs; {len(skipped)} left out, "
          f"{len(off)} off the line in K: {', '.join(off) or 'none'}")


def main(argv: list[str] | None = None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure", help="time the lone K-steps on the GPU (or --dry-run: the plan and its estimate)")
    m.add_argument("--out")
    m.add_argument("--dry-run", action="store_true")
    m.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    m.add_argument("--deadline", type=float, default=1e9, help="seconds after the start: no new config is timed")
    t = sub.add_parser("table", help="the model's table from a raw file")
    t.add_argument("raw")
    t.add_argument("--out", help=f"default: {TABLE.relative_to(ROOT)}")
    t.add_argument("--device", default="h200", help="porter hardware entry whose clock the table counts in")
    args = p.parse_args(argv)
    if args.cmd == "measure" and not args.dry_run and not args.out:
        p.error("measure needs --out (or --dry-run)")
    return {"measure": measure, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
