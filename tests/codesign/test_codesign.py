"""porter codesign: config loading, sharding, the step model against hand-worked numbers, the plan and the CLI."""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter import hardware
from porter.cli import app
from porter.codesign import ConfigError, codesign, load_config
from porter.codesign.config import TrainingConfig
from porter.codesign.sharding import plan as shard_plan
from porter.codesign.sharding import table_footprint, traffic
from porter.codesign.step import activations, backward_rows, dense_parameters, estimate, unique_rows

EXAMPLES = resources.files("porter.codesign") / "examples"


def cfg(**over) -> TrainingConfig:
    doc = {"name": "t", "gpus": 1, "batch": {"per_gpu": 1024},
           "embedding": [{"name": "e", "count": 2, "rows": 1000, "dim": 16, "pooling": 4}],
           "dense": {"bottom": [13, 32, 16], "top": [8, 1]},
           "optimizer": {"dense": "adam", "embedding": "sgd", "embedding_grad": "dense"}}
    doc.update(over)
    return TrainingConfig.model_validate(doc)


# ---- config -----------------------------------------------------------------------------------

def test_examples_load_in_both_formats(tmp_path):
    small = load_config(Path(str(EXAMPLES / "dlrm_small.toml")))
    assert small.tables == 8 and small.dense.dtype == "bf16"
    import yaml

    (tmp_path / "small.yaml").write_text(yaml.safe_dump(small.model_dump()))
    assert load_config(tmp_path / "small.yaml") == small


def test_bad_config_names_file_and_field(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('name = "x"\n[batch]\nper_gpu = 8\n[dense]\nbottom = [4, 4]\ntop = [1]\nwarp = 3\n')
    with pytest.raises(ConfigError, match=r"c.toml: dense.warp: Extra inputs"):
        load_config(p)
    p.write_text("name = \n")
    with pytest.raises(ConfigError, match=r"c.toml: not valid TOML.*line 1"):
        load_config(p)
    y = tmp_path / "c.yaml"
    y.write_text("name: x\nbatch: [1\n")
    with pytest.raises(ConfigError, match=r"c.yaml:\d+: not valid YAML"):
        load_config(y)


def test_dot_interaction_needs_matching_dims():
    with pytest.raises(ValueError, match="dot interaction needs every table's dim"):
        cfg(dense={"bottom": [13, 32, 8], "top": [8, 1]})


# ---- hand-worked memory and time ----------------------------------------------------------------

def test_dense_parameters_and_activations_by_hand():
    c = cfg()
    # bottom 13->32->16, interaction: f = 3 features, 3 pairs, top input 16 + 3 = 19 -> 8 -> 1.
    assert dense_parameters(c) == (13 * 32 + 32) + (32 * 16 + 16) + (19 * 8 + 8) + (8 * 1 + 1)
    act = activations(c, 10)
    # x fp32 + its bf16 copy; top input and every layer output in bf16.
    assert act["mlp"] == 10 * (13 * 6 + 19 * 2 + (32 + 16 + 8 + 1) * 2)
    assert act["interaction"] == 2 * 10 * 3 * 16 * 2
    assert act["indices"] == 2 * 10 * 8 * 8 + 10 * 2 * 8  # 2 tables x pooling 4 lookups, twice; a bag size each


def test_unique_rows_and_partial_segments():
    assert unique_rows(1000, 0) == 0
    assert unique_rows(1e6, 1e3) == pytest.approx(1e3, rel=1e-3)  # few draws: all distinct
    assert unique_rows(1000, 1e6) == pytest.approx(1000)  # many draws: every row
    assert backward_rows(1000, 1e6) == pytest.approx(1000 + 1e5)


def test_table_memory_by_hand():
    c = cfg(optimizer={"dense": "adam", "embedding": "adam", "embedding_grad": "dense"})
    e = c.embedding[0]
    # weights + gradient (dense) + two fp32 moments
    assert table_footprint(c, e, 1024) == 1000 * 16 * 4 * 4
    sparse = cfg(optimizer={"dense": "adam", "embedding": "rowwise_adagrad", "embedding_grad": "sparse"})
    # weights + one fp32 per row + the touched rows' gradient (1024 x 4 lookups > 1000 rows: all)
    assert table_footprint(sparse, e, 1024) == 1000 * 16 * 4 + 1000 * 4 + 1000 * 16 * 4


def test_peak_is_tables_and_dense_state_at_least():
    c = cfg()
    est = estimate(c, hardware.get("h200"), 1024, 1)
    tables = 2 * 1000 * 16 * 4 * 2  # two tables, weights and dense gradients
    p = dense_parameters(c)
    assert est.memory["tables"] == tables
    assert est.memory["dense optimizer"] == p * 8
    assert est.peak_bytes >= tables + p * (4 + 2 + 8 + 4)
    assert est.fits


def test_optimizer_traffic_scales_with_table_bytes():
    dev = hardware.get("h200")
    big = cfg(embedding=[{"name": "e", "count": 1, "rows": 50_000_000, "dim": 16, "pooling": 1}])
    part = {p.name: p for p in estimate(big, dev, 1024, 1).parts}
    table = 50_000_000 * 16 * 4
    rate = dev.spec.hbm_tbps.value * 1e12 * dev.node.hbm_efficiency.value
    assert part["embedding optimizer"].seconds == pytest.approx(3 * table / rate)  # SGD: read w, g; write w
    assert part["gradient zeroing"].seconds == pytest.approx(table / rate)


# ---- sharding and collectives ------------------------------------------------------------------------

def test_placement_prefers_whole_tables_then_columns_then_rows():
    c = cfg(gpus=4, embedding=[{"name": "big", "count": 1, "rows": 1_000_000, "dim": 64, "pooling": 1},
                               {"name": "mid", "count": 3, "rows": 200_000, "dim": 64, "pooling": 1}],
            dense={"bottom": [13, 32, 64], "top": [8, 1]})
    big = table_footprint(c, c.embedding[0], 4096)
    roomy = shard_plan(c, 1024, 4, capacity=10 * big)
    assert roomy.count("table-wise") == 4 and roomy.fits
    tight = shard_plan(c, 1024, 4, capacity=0.6 * big)  # big must split; two column pieces fit
    placed = {s.table: s for s in tight.shards}
    assert placed["big"].placement == "column-wise" and len(placed["big"].gpus) == 2 and placed["big"].dim == 32
    narrow = cfg(gpus=4, embedding=[{"name": "big", "count": 1, "rows": 1_000_000, "dim": 6, "pooling": 1}],
                 dense={"bottom": [13, 32, 16], "top": [8, 1], "interaction": "cat"})
    size = table_footprint(narrow, narrow.embedding[0], 4096)
    rows = shard_plan(narrow, 1024, 4, capacity=0.3 * size)  # 6 columns make no pieces 4 wide: rows
    assert rows.shards[0].placement == "row-wise" and rows.fits


def test_all_to_all_bytes_by_hand():
    c = cfg(gpus=2, embedding=[{"name": "e", "count": 2, "rows": 10_000_000, "dim": 16, "pooling": 1}],
            dense={"bottom": [13, 16], "top": [1]})
    sp = shard_plan(c, 100, 2, capacity=1e12)
    # each GPU holds one table: 200 samples x 16 x 4 B out, the same back, half of it to the peer
    assert traffic(c, sp, 100, 2)["all-to-all"] == 2 * 200 * 16 * 4 * 0.5


def test_node_bandwidth_mesh_against_switch():
    mi, h = hardware.get("mi350x").node, hardware.get("h200").node
    # a mesh has one link per peer: 7 peers use all 7 links, 1 peer only one; a switch gives all 18
    assert mi.bandwidth_bps(7) == pytest.approx(7 * 153.6 / 2 * 1e9 * mi.collective_efficiency.value)
    assert mi.bandwidth_bps(1) == pytest.approx(mi.bandwidth_bps(7) / 7)
    assert h.bandwidth_bps(1) == h.bandwidth_bps(7)


def test_all_reduce_against_published_h100_figure():
    # nccl-tests report 460-480 GB/s all_reduce bus bandwidth on 8x H100 SXM (third-party; see h100.toml):
    # the model's bus bandwidth is the per-direction NVLink rate after its efficiency.
    busbw = hardware.get("h100").node.bandwidth_bps(7) / 1e9
    assert 460 * 0.9 <= busbw <= 480 * 1.1


# ---- the plan -------------------------------------------------------------------------------------------

def test_production_example_gets_fewer_shards_and_no_recompute_on_mi350x():
    plan = codesign(load_config(Path(str(EXAMPLES / "dlrm_production.toml"))), "b200", "mi350x")
    assert plan.source.fits and plan.target.fits
    assert plan.target.sharding.pieces < plan.source.sharding.pieces
    assert plan.source.sharding.count("column-wise") > 0 and plan.target.sharding.count("column-wise") == 0
    whats = [c.what for c in plan.changes]
    assert any(w.startswith("place tables") for w in whats)
    assert any("recomputing" in w for w in whats)
    assert not plan.revised_config.memory.recompute
    fp8 = next(c for c in plan.changes if "fp8" in c.what)
    assert fp8.numerics and "4614" in fp8.why and fp8.speedup > 1
    assert plan.revised.samples_per_second > plan.target.samples_per_second


def test_tf32_recipe_moves_to_bf16_on_gfx950():
    c = cfg(dense={"bottom": [13, 32, 16], "top": [8, 1], "dtype": "tf32"})
    plan = codesign(c, "h200", "mi350x")
    change = next(ch for ch in plan.changes if "GEMMs" in ch.what)
    assert "bf16" in change.what and "no native tf32" in change.why and change.numerics
    assert plan.revised_config.dense.dtype == "bf16"


def test_batch_recommendation_respects_the_cap():
    c = cfg(batch={"per_gpu": 1024, "candidates": [1024, 4096, 16384, 65536]},
            memory={"cap_gb": 0.01}, dense={"bottom": [13, 512, 16], "top": [512, 1]})
    plan = codesign(c, "h200", "h200")
    assert plan.revised.fits and plan.revised.peak_bytes <= 0.01e9
    bigger = [b for b in (4096, 16384, 65536) if b > plan.revised.batch]
    assert all(not estimate(c, hardware.get("h200"), b, 1).fits for b in bigger)


# ---- CLI ----------------------------------------------------------------------------------------------

def test_cli_tables_and_json():
    runner = CliRunner()
    path = str(EXAMPLES / "dlrm_small.toml")
    r = runner.invoke(app, ["codesign", path, "--from", "h200", "--to", "mi350x"])
    assert r.exit_code == 0, r.output
    for heading in ("Memory per GPU", "Recipe changes", "Step time per GPU"):
        assert heading in r.output
    r = runner.invoke(app, ["codesign", path, "--from", "h200", "--to", "mi350x", "--json"])
    data = json.loads(r.output)
    assert data["target"]["device"] == "MI350X" and data["source"]["device"] == "H200"
    assert math.isclose(sum(p["seconds"] for p in data["source"]["parts"]), data["source"]["device_seconds"])


def test_cli_bad_input_exits_2(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["codesign", str(tmp_path / "none.toml"), "--from", "h200"])
    assert r.exit_code == 2 and "cannot read" in r.output
    r = runner.invoke(app, ["codesign", str(EXAMPLES / "dlrm_small.toml"), "--from", "v100"])
    assert r.exit_code == 2 and "unknown device" in r.output
