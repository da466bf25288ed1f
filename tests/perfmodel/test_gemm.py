"""The GEMM model against hand-worked numbers (each with where it comes from)."""

import math

import pytest

from porter import hardware
from porter.perfmodel.gemm import Candidates, Gemm, GemmConfig, evaluate, predict

MI350X = hardware.get("gfx950")
H200 = hardware.get("h200")


def test_lds_follows_each_backends_pipeliner():
    cfg = GemmConfig(128, 128, 64, num_warps=4, num_stages=2, matrix_instr_nonkdim=16)
    # num_stages x (A tile + B tile) = 2 x (128 + 128) x 64 x 2 B: what Triton 3.9 allocates on
    # gfx950 (docs/evidence/perfmodel-crosscheck-gfx950-2026-11-29.txt)
    assert predict(Gemm(4096, 4096, 4096), cfg, MI350X).lds_bytes == 65536
    # NVIDIA: num_stages buffers: 3 x 32768 B
    nv = GemmConfig(128, 128, 64, num_warps=4, num_stages=3)
    assert predict(Gemm(4096, 4096, 4096), nv, H200).lds_bytes == 98304


def test_a_config_that_overflows_lds_is_refused():
    # 2 x (256 + 256) x 128 x 2 B = 256 KiB of buffers > 160 KiB on gfx950
    cfg = GemmConfig(256, 256, 128, num_warps=8, num_stages=2, matrix_instr_nonkdim=16)
    with pytest.raises(ValueError, match="not a legal bf16 config on MI350X"):
        predict(Gemm(4096, 4096, 4096), cfg, MI350X)


def test_gfx950_accepts_only_kpack_1():
    cfg = GemmConfig(128, 128, 64, num_warps=4, num_stages=2, matrix_instr_nonkdim=16, kpack=2)
    with pytest.raises(ValueError):
        predict(Gemm(4096, 4096, 4096), cfg, MI350X)


def test_wgmma_k_step_is_its_math_then_the_bytes_it_lands_on_h200():
    # bf16 256x128x64, 8 warps (two warpgroups), 8192^3: one workgroup per SM (LDS), 2048 tiles in
    # 15 full waves of 132 and one of 68. Per K-step (clocks at 1830 MHz, H200 data):
    clk = 1.83e9
    math_clk = 2 * 256 * 128 * 64 / (989e12 / (132 * clk))  # 1024.4: the datasheet rate (H200 datasheet)
    landed = (256 + 128) * 64 * 2 / 128  # 384: 48 KiB cp.async'ed into shared memory at 128 B/clk
    own = math_clk + landed + 150 / 2  # the loop overhead, one share per warpgroup
    latency = 1338e-9 * clk  # H200 [model] dram_latency_ns
    epilogue = 256 * 128 * 2 / 38.7  # the C tile at the SM's L2 rate
    cu_wave = (128 * own + latency + epilogue) / clk
    # Each wave's unique panels (GROUP_M 8: 8 tile rows by 17 or 9 tile columns) and its C tiles
    # from DRAM at 4.8 TB/s; 0.2 of that time is not hidden ([model] dram_exposed_share).
    dram_full = ((8 * 256 + 17 * 128) * 8192 * 2 + 132 * 256 * 128 * 2) / 4.8e12
    dram_last = ((8 * 256 + 9 * 128) * 8192 * 2 + 68 * 256 * 128 * 2) / 4.8e12
    expected = 15 * (cu_wave + 0.2 * dram_full) + (cu_wave + 0.2 * dram_last) + 3e-6
    four = predict(Gemm(8192, 8192, 8192), GemmConfig(256, 128, 64, num_warps=8, num_stages=4), H200)
    assert four.bound == "compute"
    assert four.time_s == pytest.approx(expected, rel=1e-4)
    # With 3 stages only 2 K-steps are in flight: (latency + 48 KiB at 38.7 B/clk) / 2 = 1859 clk a
    # K-step, more than the 1483 of the SM's work: the loads bind.
    three = predict(Gemm(8192, 8192, 8192), GemmConfig(256, 128, 64, num_warps=8, num_stages=3), H200)
    assert three.bound == "memory-latency" and three.time_s > four.time_s


def test_wave_quantisation_one_tile_past_a_full_wave_costs_a_wave():
    cfg = GemmConfig(256, 128, 64, num_warps=8, num_stages=3)
    resident = predict(Gemm(256, 128, 8192), cfg, H200).resident
    slots = H200.cus * resident
    full = predict(Gemm(256 * slots, 128, 8192), cfg, H200)  # exactly one wave of tiles
    over = predict(Gemm(256 * slots + 1, 128, 8192), cfg, H200)  # one tile more
    assert (full.waves, over.waves) == (1, 2)
    assert over.time_s > 1.3 * full.time_s
    assert over.utilization == pytest.approx((256 * slots + 1) / (256 * (slots + 1)))


def test_masked_edges_are_not_fetched():
    # M = 16 rows in a 64-row tile: the A loads past row 16 are masked, so a 64-row tile moves
    # no more bytes than a 16-row one; only its compute is wasted.
    small, big = GemmConfig(16, 64, 128, num_stages=4), GemmConfig(64, 64, 128, num_stages=4)
    t16 = predict(Gemm(16, 8192, 8192), small, H200)
    t64 = predict(Gemm(16, 8192, 8192), big, H200)
    assert t64.utilization == pytest.approx(0.25)
    assert t64.time_s < 1.5 * t16.time_s


def test_vectorised_and_single_config_paths_agree():
    configs = [GemmConfig(bm, bn, 64, num_warps=w, num_stages=s)
               for bm in (64, 128) for bn in (64, 128) for w in (4, 8) for s in (2, 3)]
    problem = Gemm(3000, 5000, 2000)
    seconds, _ = evaluate(problem, Candidates(configs, H200, "bf16"))
    for cfg, t in zip(configs, seconds):
        assert predict(problem, cfg, H200).time_s == pytest.approx(float(t))


def test_doubling_k_roughly_doubles_a_compute_bound_gemm():
    cfg = GemmConfig(256, 256, 64, num_warps=8, num_stages=2, matrix_instr_nonkdim=16)
    t1 = predict(Gemm(8192, 8192, 4096), cfg, MI350X).time_s
    t2 = predict(Gemm(8192, 8192, 8192), cfg, MI350X).time_s
    assert math.isclose(t2 / t1, 2.0, rel_tol=0.1)


def test_bad_problems_are_errors():
    with pytest.raises(ValueError, match="positive"):
        Gemm(0, 1, 1)
    with pytest.raises(ValueError, match="unknown GEMM dtype"):
        Gemm(1, 1, 1, "int4")


@pytest.mark.parametrize("dev", [H200, MI350X], ids=["h200", "gfx950"])
def test_stages_past_the_loops_k_steps_buy_nothing(dev):
    # Two K-steps: the pipeline can keep at most two in flight, so 3, 4 and 5 stages load alike
    # (persistent: one workgroup per CU whatever LDS the extra stages take). A long K still gains.
    from porter.perfmodel.gemm import Traits

    persistent = Traits("nt", persistent=True)
    cfgs = [GemmConfig(32, 32, 64, num_warps=4, num_stages=s, matrix_instr_nonkdim=16 if dev is MI350X else 0)
            for s in (2, 3, 4, 5)]
    c = Candidates(cfgs, dev, "bf16", persistent)
    short, _ = evaluate(Gemm(32, 4096, 128, "bf16", persistent), c)
    assert short[1] == short[2] == short[3] < short[0]
    long, _ = evaluate(Gemm(32, 4096, 8192, "bf16", persistent), c)
    assert long[2] < long[1]
