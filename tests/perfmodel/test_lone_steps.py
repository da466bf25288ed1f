"""bench/perfmodel_lone_steps.py without a GPU: what `measure` times, its estimate, and the model's table from the raw."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "bench" / "results" / "perfmodel-h200-lone-steps-2026-12-02.json"
TABLE = ROOT / "porter" / "perfmodel" / "data" / "triton-3.6-sm90a-nn-lone.json"
FACTS = ROOT / "bench" / "results" / "perfmodel-compile-facts-nn-fp8-aligned-triton36-2026-12-01-i18o.jsonl"


@pytest.fixture(scope="module")
def lone(bench_module):
    return bench_module("perfmodel_lone_steps")


def _label(cfg) -> str:
    return f"{cfg.block_m}x{cfg.block_n}x{cfg.block_k} w{cfg.num_warps} s{cfg.num_stages}"


def test_plan_times_fp8s_mma_sync_configs_first_and_fits_one_device_call(lone):
    """fp8's BM 16 and 32 configs are the 184 that Triton 3.6 compiles to mma.sync at N on 16 (HMMA in the loop of the
    committed compile facts), timed first; then bf16 and fp16 at BM 16 / 32, then BM 64; the estimate is under 200 s."""
    items = lone.plan()
    facts = [json.loads(line) for line in FACTS.read_text().splitlines()]
    mma = {f["config"] for f in facts if f["loop"]["HMMA"] > 0}
    assert len(mma) == 184
    assert [_label(c) for dt, c in items[:184]] == [_label(c) for c in lone.configs_of("fp8", (16, 32))]
    assert {_label(c) for dt, c in items[:184]} == mma and {dt for dt, _ in items[:184]} == {"fp8"}
    assert [dt for dt, c in items].count("bf16") == 272 and len(items) == 816
    assert all(c.block_m == 64 for _, c in items[552:])
    # every point gives each of the 132 SMs exactly r workgroups (one row of tiles: M = BM)
    assert {(name, r, grid // r) for name, r, grid, _ in lone.points_of()} == {
        ("r1", 1, 132), ("r2", 2, 132), ("r3", 3, 132), ("quarter", 1, 33)}
    assert lone.estimate(items)["total_s"] < 200


def test_table_is_what_table_writes_from_the_committed_raw(lone, tmp_path):
    """The committed table round-trips from the committed raw byte for byte; the lone step is the r = 1 slope over K in
    clk at the model's 1830 MHz, or over K 8192-16384 where the K 4096 time is off the line (two fp8 configs)."""
    out = tmp_path / "lone.json"
    lone.main(["table", str(RAW), "--out", str(out)])
    assert out.read_bytes() == TABLE.read_bytes()
    table = json.loads(out.read_text())
    assert {dt: len(rows) for dt, rows in table["configs"].items()} == {"bf16": 272, "fp16": 272, "fp8": 272}
    raw = json.loads(RAW.read_text())
    row = next(r for r in raw["rows"] if r["dtype"] == "fp8" and _label_raw(r) == "16x64x128 w4 s4")
    t = {(p["name"], p["k"]): p["seconds"] for p in row["points"]}
    slope = (t[("r1", 16384)] - t[("r1", 4096)]) / ((16384 - 4096) / 128) * 1830e6
    assert table["configs"]["fp8"]["16x64x128 w4 s4"][0] == round(slope, 1)
    assert "fp8 16x256x256 w4 s3, fp8 32x32x64 w8 s3" in table["provenance"]["off_the_line"]
    odd = next(r for r in raw["rows"] if r["dtype"] == "fp8" and _label_raw(r) == "16x256x256 w4 s3")
    t = {(p["name"], p["k"]): p["seconds"] for p in odd["points"]}
    assert t[("r1", 4096)] > t[("r1", 8192)]  # the slow first launch
    assert table["configs"]["fp8"]["16x256x256 w4 s3"][0] == round(
        (t[("r1", 16384)] - t[("r1", 8192)]) / ((16384 - 8192) / 256) * 1830e6, 1)


def _label_raw(row: dict) -> str:
    return f"{row['bm']}x{row['bn']}x{row['bk']} w{row['warps']} s{row['stages']}"
