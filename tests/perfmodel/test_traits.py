"""Kernel traits as perfmodel inputs: operand layout and persistence change the terms they should."""

from __future__ import annotations

import json

import libcst as cst
import numpy as np
import pytest
from typer.testing import CliRunner

from porter import hardware
from porter import triton_source as src
from porter.cli import app
from porter.perfmodel import GemmConfig, Traits, select
from porter.perfmodel.gemm import (
    BOUNDS,
    FP8_TRANSPOSE_PASSES,
    Candidates,
    Gemm,
    compiled_aligned,
    compiled_scalar_b,
    evaluate,
    lone_steps,
    predict,
    triton_release,
)

CFG = GemmConfig(128, 64, 64, num_warps=4, num_stages=2)


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="unknown GEMM layout 'kn'"):
        Traits("kn")


def test_fp8_mn_major_operand_pays_its_transpose_on_sm90_only():
    h200 = hardware.get("h200")
    nt, nn = (Candidates([CFG], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    lanes = CFG.block_n // 16  # lanes of a warp along N: 16-byte vectors of fp8
    extra = FP8_TRANSPOSE_PASSES * CFG.block_n * CFG.block_k * lanes / h200.model.lds_bytes_per_clk_per_cu.value
    assert nn.lds_clk[0] - nt.lds_clk[0] == pytest.approx(extra)
    bf_nt, bf_nn = (Candidates([CFG], h200, "bf16", Traits(layout)) for layout in ("nt", "nn"))
    assert bf_nn.lds_clk[0] == bf_nt.lds_clk[0]  # 16-bit wgmma reads either major


def test_fp8_transposing_store_conflicts_grow_with_the_tile_width():
    # Bytes of lanes along N land in one bank: per byte, a BN 256 tile pays 4x a BN 64 tile.
    h200 = hardware.get("h200")
    narrow, wide = (GemmConfig(128, bn, 64, num_warps=8, num_stages=2) for bn in (64, 256))
    per_byte = []
    for cfg in (narrow, wide):
        nt, nn = (Candidates([cfg], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
        per_byte.append((nn.lds_clk[0] - nt.lds_clk[0]) / (cfg.block_n * cfg.block_k))
    assert per_byte[1] == pytest.approx(4 * per_byte[0])


def test_fp8_transposing_store_costs_bn_32_and_bn_64_alike_per_byte():
    # T15 (evidence note 2026-12-01, eleventh look): on nn fp8 fit rows 256x32x128 w8 s3 and 256x64x64 w8 s4-s5
    # (same B elements per K-step, BM, 2 resident each) take the same time per K-step (1275 vs 1281-1303 clk at
    # 4096x4096x8192), where 2 and 4 conflicting lanes would double BN 64's store: the store serializes over at
    # least 4 lanes. So per byte BN 32 = BN 64, BN 128 twice, BN 256 four times; BN 32 keeps its old price.
    h200 = hardware.get("h200")
    per_byte = {}
    for bn in (32, 64, 128, 256):
        cfg = GemmConfig(256 if bn < 256 else 128, bn, 64, num_warps=8, num_stages=2)
        nt, nn = (Candidates([cfg], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
        per_byte[bn] = (nn.lds_clk[0] - nt.lds_clk[0]) / (bn * 64)
    assert per_byte[32] == pytest.approx(per_byte[64])
    assert per_byte[128] == pytest.approx(2 * per_byte[64]) and per_byte[256] == pytest.approx(4 * per_byte[64])
    assert per_byte[32] == pytest.approx(12 * 2 / h200.model.lds_bytes_per_clk_per_cu.value)  # T2's BN-32 price
    # the pick on a fit shape of the kind (nn fp8 4096x4096x8192: best 256x64x128, 256x32x64 measured 0.90 of it)
    best = select("matmul", (4096, 4096, 8192), "fp8", "h200", Traits("nn")).best.config
    assert (best.block_m, best.block_n) == (256, 64)


def test_fp8_mma_sync_tile_is_not_transposed_through_shared_memory():
    # BM 32 runs mma.sync: no transposing store into shared memory (its byte-wise loads are in compute_clk).
    h200 = hardware.get("h200")
    small = GemmConfig(32, 64, 128, num_warps=4, num_stages=3)
    nt, nn = (Candidates([small], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    assert not nn.wgmma[0]
    assert nn.lds_clk[0] == nt.lds_clk[0]


def test_fp8_mma_sync_on_sm90_is_the_busiest_of_hmma_conversions_and_byte_loads():
    # Triton 3.9's sm_90a SASS for 32x128x64 w4 fp8 (evidence note 2026-12-01, seventh look): warps [1, 4],
    # 32 HMMA.16816.F32 (f16), 64 F2FP.F16.E4M3.UNPACK_B per thread in nt and nn alike, and in nn 64 LDS.U8
    # per thread for the row-major B fragment. Per K-step of the workgroup: conversions 4 warps x
    # (32 + 32) x 64 elements / 2 per F2FP / 16 per clk (H200 [spec]) = 512 clk; byte loads 4 x 32 x 64 B
    # / 16 B/clk (H200 [model] mma_byte_loads_per_clk_per_cu) = 512 clk; HMMA at the fp16 rate (989 TFLOP/s:
    # 4094.3 flop/clk per SM, 128 clk) at the fitted mma.sync shares (0.4576 x 0.3459): 809 clk, which binds.
    h200 = hardware.get("h200")
    cfg = GemmConfig(32, 128, 64, num_warps=4, num_stages=5)
    nt, nn = (Candidates([cfg], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    assert not nt.wgmma[0]
    hmma = 2 * 32 * 128 * 64 / (989e12 / (132 * 1.83e9)) / (
        h200.model.matrix_efficiency.value * h200.model.fallback_matrix_efficiency.value)
    assert hmma == pytest.approx(809.0, rel=1e-3)
    assert nt.compute_clk[0] == pytest.approx(max(hmma, 512.0))
    assert nn.compute_clk[0] == pytest.approx(max(hmma, 512.0, 512.0))
    # A narrow tile whose conversions bind: 16x32x256 w4 (warps [1, 4], 96 F2FP per thread in the SASS):
    # 4 x (16 + 8) x 256 / 2 / 16 = 768 clk; its nn B bytes 4 x 8 x 256 / 16 = 512 clk.
    narrow = GemmConfig(16, 32, 256, num_warps=4, num_stages=5)
    nt, nn = (Candidates([narrow], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    hmma = 2 * 16 * 32 * 256 / (989e12 / (132 * 1.83e9)) / (
        h200.model.matrix_efficiency.value * h200.model.fallback_matrix_efficiency.value)
    assert hmma < 768
    assert nt.compute_clk[0] == pytest.approx(768.0)
    assert nn.compute_clk[0] == pytest.approx(768.0)
    # None of it on the wgmma path, for 16-bit operands, or off sm_90 (B200's tiles keep the fitted rate).
    big_nt, big_nn = (Candidates([CFG], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    assert big_nn.wgmma[0] and big_nn.compute_clk[0] == big_nt.compute_clk[0]
    bf_nt, bf_nn = (Candidates([cfg], h200, "bf16", Traits(layout)) for layout in ("nt", "nn"))
    assert bf_nn.compute_clk[0] == bf_nt.compute_clk[0]
    b200 = hardware.get("b200")
    b_nt, b_nn = (Candidates([cfg], b200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    assert b_nn.compute_clk[0] == b_nt.compute_clk[0] == pytest.approx(
        2 * 32 * 128 * 64 / (b200.flops_per_clk_per_cu("fp8") * b200.model.matrix_efficiency.value
                             * b200.model.fallback_matrix_efficiency.value))


def test_mma_v2_warp_grid_is_tritons():
    # warpsPerCTA read from Triton 3.9's sm_90 compiles (TTGIR #mma versionMajor = 2).
    from porter.perfmodel.gemm import _mma_v2_warps

    bm, bn, nw = (np.array(v, dtype=float) for v in ([32, 32, 16, 16], [128, 32, 64, 32], [4, 4, 8, 4]))
    along_m, along_n = _mma_v2_warps(bm, bn, nw)
    assert list(zip(along_m, along_n)) == [(1, 4), (2, 2), (1, 8), (1, 4)]


def test_fp8_mn_major_wgmma_workgroup_waits_a_latency_per_k_step():
    # nn fp8 256x32x128 w8 (wgmma): B comes in by LDG.E.128 in the K-step that stores it (STS.U8) and
    # multiplies it (wait 0): a lone workgroup waits one latency per K-step, a second resident one hides it.
    h200 = hardware.get("h200")
    cfg = GemmConfig(256, 32, 128, num_warps=8, num_stages=3)
    nt, nn = (Candidates([cfg], h200, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    assert nn.wgmma[0] and list(nn.exposed_latencies) == [1.0] and list(nt.exposed_latencies) == [0.0]
    bf = Candidates([cfg], h200, "bf16", Traits("nn"))
    assert list(bf.exposed_latencies) == [0.0]  # 16-bit wgmma reads an MN-major tile as it is
    small = Candidates([GemmConfig(32, 64, 128, num_warps=4, num_stages=3)], h200, "fp8", Traits("nn"))
    assert list(small.exposed_latencies) == [0.0]  # mma.sync keeps cp.async for both operands
    # One tile per SM, 64 K-steps: nt keeps two K-steps in flight (stages - 1), so its steps cost at most
    # half a latency each; nn waits a whole one per step on top of its work.
    problem_nt, problem_nn = (Gemm(256 * 132, 32, 128 * 64, "fp8", Traits(layout)) for layout in ("nt", "nn"))
    t_nt, _ = evaluate(problem_nt, nt)
    t_nn, _ = evaluate(problem_nn, nn)
    latency = h200.model.dram_latency_ns.value * 1e-9
    assert t_nn[0] - t_nt[0] >= 64 * latency / 2


def test_serialized_wgmma_tile_waits_a_measured_clock_count_per_k_step():
    # Triton 3.6.0 + ptxas 12.8 (sm_90a compiles, evidence note 2026-12-01, eighth look): the one-tile nt
    # kernel's 128x256 w8 tile gets ptxas C7515 (every wgmma waited to zero); its 256x128 twin, 4 warps,
    # the persistent kernel and a row-major B do not; with N off a multiple of 16 it is not serialized.
    h200 = hardware.get("h200")
    wide, tall, w4 = (GemmConfig(bm, bn, 64, num_warps=nw, num_stages=4)
                      for bm, bn, nw in ((128, 256, 8), (256, 128, 8), (64, 256, 4)))
    serial = h200.model.wgmma_serialized_clk.value
    assert list(Candidates([wide, tall, w4], h200, "bf16").serialized_clk) == [serial, 0.0, 0.0]
    for traits in (Traits("nn"), Traits("nt", persistent=True), Traits("nt", triton=(3, 9))):
        assert list(Candidates([wide], h200, "bf16", traits).serialized_clk) == [0.0]
    # The term follows the compiling Triton: 3.6 (the sweeps') and an unknown release serialize, 3.9 does not.
    assert Traits("nt", triton=(3, 6)).serializes_wide_wgmma and Traits("nt").serializes_wide_wgmma
    assert hardware.get("mi350x").model.wgmma_serialized_clk is None
    # A lone workgroup (one tile per SM down M, 2048 K-steps) waits the serialized clocks in its own time,
    # which binds (1024 clk of math + 48 KiB landed / 128 + 75 of overhead, over 1270 of loads and the
    # DRAM's 2.2 MB per K-step): each K-step grows by exactly that much; at N = 248 (not 16-divisible) not.
    c = Candidates([wide], h200, "bf16")
    unserialized = Candidates([wide], h200, "bf16")
    unserialized.serialized_clk = np.zeros(1)
    steps = 2048
    for n, extra in ((256, serial), (248, 0.0)):
        problem = Gemm(128 * 132, n, 64 * steps, "bf16")
        (t,), _ = evaluate(problem, c)
        (t0,), _ = evaluate(problem, unserialized)
        assert t - t0 == pytest.approx(steps * extra / h200.clock_hz, rel=1e-6, abs=1e-12)


def test_row_major_b_with_n_off_16_is_loaded_by_scalar_loads_unpipelined():
    # Triton 3.6.0's sm_90a compile of the nn kernel at N = 5000 (evidence note 2026-12-01, ninth look):
    # 128x64x64 w4 s3 bf16 loads B by 32 LDG.E.U16 per thread per K-step (64 x 64 elements / 128 threads)
    # into one shared buffer (57344 B = 3 x 16 KiB of A + 8 KiB of B), stores them by 32 STS.U16, then
    # waits its wgmma; 230 registers (1 resident slot fewer). The model, by hand, where no table of compiled
    # resources matches the kernel's Triton (3.9 here; for 3.6 on sm_90 the compile decides, T16, test below):
    h200 = hardware.get("h200")
    cfg = GemmConfig(128, 64, 64, num_warps=4, num_stages=3)
    nn39 = Traits("nn", triton=(3, 9))
    c = Candidates([cfg], h200, "bf16", nn39)
    assert c.scalar_b and not Candidates([cfg], h200, "bf16", Traits("nt")).scalar_b  # nt's B stride is K
    assert not Candidates([cfg], hardware.get("mi350x"), "bf16", Traits("nn")).scalar_b  # compiled for sm_90 only
    # registers: 64 accumulator + 40 + 3 x 32 elements (address pair + value each) = 200 (compiled 230)
    assert c.regs[0] == 104 and c.scalar_b_regs[0] == 200
    assert c.scalar_b_lds[0] == 3 * 128 * 64 * 2 + 64 * 64 * 2 == 57344
    # residency: 262144 B of registers / (200 x 4 B x 128 threads) = 2 (compiled 2); aligned N: 3 (by LDS)
    assert c.resident[0] == 3 and c.scalar_b_resident[0] == 2
    # shared memory / L1 issue: 4096 loads + 4096 stores at 32 lanes (lds_banks) per clock = 256 clk on top
    # of the wgmma operand reads (16384 + 2 x 8192 B at 128 B/clk = 256 clk)
    assert c.lds_clk[0] == 256 and c.scalar_b_lds_clk[0] == 512
    # A lone workgroup, one tile (M 128, N 56 or 64), 100 K-steps. Aligned (N 64): its own time is the
    # wgmma step (T14: 32768 B of operand reads + 24576 B landed at 105 B/clk = 546.1 clk, over the math's
    # 256.1 and the scalar path's 512 of shared memory) + 150 overhead = 696.1 clk, below its loads (2448.5
    # clk latency + 24576 B / 38.7 B/clk = 635.0, over 2 in flight: 1541.8 clk), which bind. N 56: 546.1 +
    # 150 + one latency 2448.5 = 3144.6 clk binds (T16's 128 scalar requests at 5 clk add 640 clk to the loads:
    # (2448.5 + 635.0 + 640) / 2 = 1861.7, still below).
    clk = h200.clock_hz
    (t64,), _ = evaluate(Gemm(128, 64, 6400, "bf16", nn39), c)
    (t56,), _ = evaluate(Gemm(128, 56, 6400, "bf16", nn39), c)
    assert t56 - t64 == pytest.approx(100 * (3144.6 - 1541.8) / clk, rel=2e-3)
    # A config whose registers would pass 255 is ruled out at N off 16: 256x128x128 w8 s2 needs
    # 128 + 40 + 3 x 64 = 360 (compiled: 255 and 712 B of spill stack); at N = 5008 it is legal.
    big = GemmConfig(256, 128, 128, num_warps=8, num_stages=2)
    with pytest.raises(ValueError, match="at N = 5000"):
        predict(Gemm(3000, 5000, 2000, "bf16", nn39), big, h200)
    assert predict(Gemm(3000, 5008, 2000, "bf16", nn39), big, h200).registers == 168
    odd = predict(Gemm(3000, 5000, 2000, "bf16", nn39), cfg, h200)
    assert (odd.resident, odd.registers, odd.lds_bytes) == (2, 200, 57344)


def test_scalar_b_resources_and_latencies_follow_triton_36s_compile():
    """T16 (twelfth look): for Triton 3.6 on sm_90 (the table porter/perfmodel/data/triton-3.6-sm90a-nn-scalar-b.json,
    every config of the H200 space compiled for nn at N off 16), the compile decides what T13 counted."""
    h200 = hardware.get("h200")
    cfgs = [GemmConfig(bm, bn, bk, num_warps=w, num_stages=st) for bm, bn, bk, w, st in
            ((256, 128, 64, 8, 3), (256, 128, 128, 8, 2), (16, 128, 32, 4, 3), (64, 128, 32, 4, 4))]
    c, c39 = (Candidates(cfgs, h200, "bf16", Traits("nn", triton=t)) for t in ((3, 6), (3, 9)))
    # 256x128x64 w8 s3 bf16, the measured best of four nn fit shapes at N off 16 (3000x5000x2000, ...): T13 counts
    # 128 + 40 + 3 x 32 = 264 registers and rules it out; compiled, 255 with 40 B of stack (6 LDL per K-step).
    assert not c39.scalar_b_legal[0] and c39.scalar_b_regs[0] == 264
    assert c.scalar_b_legal[0] and c.scalar_b_regs[0] == 255 and c.scalar_b_resident[0] == 1
    # ... its requests per K-step: 128 x 64 / 32 warp-wide loads + 6 LDL x 8 warps
    assert c.scalar_b_requests[0] == 256 + 48 and c39.scalar_b_requests[0] == 256
    # 256x128x128 w8 s2 spills 712 B as compiled: ruled out either way
    assert not c.scalar_b_legal[1] and not c39.scalar_b_legal[1]
    # 16x128x32 w4 s3 compiles to 56 registers and interleaves its 32 loads with their stores (5 loads, 2 stores,
    # 1 load, 3 stores, ...): 8 latencies per K-step, where 64x128x32 w4 s4 (168 registers) issues all 32 first: 1
    assert c.scalar_b_regs[2] == 56 and c.scalar_b_resident[2] == 9
    assert c.scalar_b_latencies[2] == pytest.approx(8.01) and c.scalar_b_latencies[3] == pytest.approx(1.01)
    assert list(c39.scalar_b_latencies) == [1.0] * 4
    # measured on the fit shape bf16 12x50257x1024 (one wave): 16x128x32 w4 s3 0.401 of the best (64x128x32 w4 s4);
    # T13 prices the two alike, T16 ranks the second first
    shape = Gemm(12, 50257, 1024, "bf16", Traits("nn"))
    slow, fast = (predict(shape, cfg, h200).time_s for cfg in cfgs[2:])
    assert fast < slow / 2
    # fp8 128x128x64 w4 s3, the measured best of five nn fit shapes at N off 16: T13 counts 360 registers; compiled
    # 255, no stack, and its loop packs B's bytes along K (PRMT, 16-byte stores; no STS.U8): no transposing store
    fp8 = [GemmConfig(128, 128, 64, num_warps=4, num_stages=3), GemmConfig(128, 32, 128, num_warps=4, num_stages=2)]
    f, f39 = (Candidates(fp8, h200, "fp8", Traits("nn", triton=t)) for t in ((3, 6), (3, 9)))
    assert not f39.scalar_b_legal[0] and f.scalar_b_legal[0] and f.scalar_b_resident[0] == 2
    assert f.transpose_b_clk[0] > 0
    assert f.scalar_b_lds_clk[0] == pytest.approx(f39.scalar_b_lds_clk[0] - f.transpose_b_clk[0])
    # 128x32x128 w4 s2 stores per byte (STS.U8 in its loop): T2 stays
    assert f.scalar_b_lds_clk[1] == f39.scalar_b_lds_clk[1]
    # on the fit shape fp8 72x32001x4096 the model of the eleventh look picked 128x32x128 w4 s2 (0.496 of the best)
    shape = Gemm(72, 32001, 4096, "fp8", Traits("nn"))
    assert predict(shape, fp8[0], h200).time_s < predict(shape, fp8[1], h200).time_s
    # the table is read only where the compiling release and the target match
    assert compiled_scalar_b(Traits("nn"), "sm_90", "bf16") is not None
    assert compiled_scalar_b(Traits("nn", triton=(3, 9)), "sm_90", "bf16") is None
    assert compiled_scalar_b(Traits("nn"), "sm_100", "bf16") is None


def test_scalar_b_addresses_rebuilt_from_constant_loads_cost_each_k_step():
    """T17 (thirteenth look): where Triton 3.6's compile is short of registers it rebuilds B's scalar-load addresses
    in the loop from B's row stride reloaded out of the constant bank (LDC, then IMAD, IMAD.WIDE, LDG): each LDC
    adds [model] scalar_b_constant_load_clk to the workgroup's K-step."""
    h200 = hardware.get("h200")
    cfgs = [GemmConfig(128, 128, 64, num_warps=4, num_stages=3), GemmConfig(256, 128, 64, num_warps=8, num_stages=3),
            GemmConfig(16, 128, 128, num_warps=8, num_stages=3)]
    c, c39 = (Candidates(cfgs, h200, "bf16", Traits("nn", triton=t)) for t in ((3, 6), (3, 9)))
    # the compiled loops: 53 LDC at bf16 128x128x64 w4 s3 (255 registers), 1 at 256x128x64 w8 s3, none at 16x128x128 w8
    assert list(c.scalar_b_constant_loads) == [53, 1, 0]
    assert list(c39.scalar_b_constant_loads) == [0, 0, 0]  # no table for Triton 3.9: no term
    assert compiled_scalar_b(Traits("nn"), "sm_90", "bf16")["128x128x64 w4 s3"].loop_constant_loads == 53
    without = h200.model_copy(update={"model": h200.model.model_copy(update={"scalar_b_constant_load_clk": None})})
    # on the fit shape bf16 700x7001x2048 (N off 16) 128x128x64 w4 s3 measures 193 us, 0.685 of the best, and
    # 256x128x64 w8 s3 149 us; without T17 the model ranked the first first (146 against 148 us)
    shape = Gemm(700, 7001, 2048, "bf16", Traits("nn"))
    t, t0 = ([predict(shape, cfg, dev).time_s for cfg in cfgs] for dev in (h200, without))
    assert t0[0] < t0[1] and t[1] < t[0]
    assert t[2] == t0[2]  # no constant loads, no change
    # the term is the workgroup's own time: one K-step of a lone workgroup (one tile, one wave) gains 53 x 50 clk
    lone = Gemm(128, 125, 6400, "bf16", Traits("nn"))
    (a,), _ = evaluate(lone, Candidates(cfgs[:1], h200, "bf16", Traits("nn")))
    (b,), _ = evaluate(lone, Candidates(cfgs[:1], without, "bf16", Traits("nn")))
    assert a - b == pytest.approx(100 * 53 * h200.model.scalar_b_constant_load_clk.value / h200.clock_hz, rel=1e-6)
    # at N on 16 B is loaded in 16-byte vectors (no scalar loop): no term
    on16 = Gemm(700, 7008, 2048, "bf16", Traits("nn"))
    assert predict(on16, cfgs[0], h200).time_s == predict(on16, cfgs[0], without).time_s


def test_fp16_nn_at_n_off_16_reads_its_own_compile():
    """First nn fp16 look: Triton 3.6's sm_90a compiles of the nn kernel at N off 16 for fp16 (the table's fp16 rows,
    every config of the H200 space) are the model's, not T13's count. They equal bf16's in every column for all 420
    configs (the evidence note), so fp16 is priced as bf16 there, as it is everywhere else on the H200."""
    h200 = hardware.get("h200")
    fp16 = compiled_scalar_b(Traits("nn"), "sm_90", "fp16")
    assert fp16 is not None and fp16 == compiled_scalar_b(Traits("nn"), "sm_90", "bf16") and len(fp16) == 420
    cfgs = [GemmConfig(bm, bn, bk, num_warps=w, num_stages=st) for bm, bn, bk, w, st in
            ((256, 128, 64, 8, 3), (16, 128, 32, 4, 3), (128, 128, 64, 4, 3))]
    c, c39 = (Candidates(cfgs, h200, "fp16", Traits("nn", triton=t)) for t in ((3, 6), (3, 9)))
    # 256x128x64 w8 s3: T13 counts 264 registers and rules it out; compiled, 255 with 40 B of stack, one resident
    assert not c39.scalar_b_legal[0] and c39.scalar_b_regs[0] == 264
    assert c.scalar_b_legal[0] and c.scalar_b_regs[0] == 255 and c.scalar_b_resident[0] == 1
    # 16x128x32 w4 s3 interleaves its loads and stores (8 latencies per K-step); 128x128x64 w4 s3 reloads B's row
    # stride 53 times a K-step (T17)
    assert c.scalar_b_latencies[1] == pytest.approx(8.01) and list(c39.scalar_b_latencies) == [1.0] * 3
    assert list(c.scalar_b_constant_loads) == [1, 1, 53] and list(c39.scalar_b_constant_loads) == [0, 0, 0]
    # the same shape in fp16 and bf16 is predicted alike, config by config
    from porter.perfmodel.select import space

    configs = space(h200, "fp16")
    t16, t_bf = (evaluate(Gemm(700, 7001, 2048, dt, Traits("nn")), Candidates(configs, h200, dt, Traits("nn")))[0]
                 for dt in ("fp16", "bf16"))
    assert np.array_equal(t16, t_bf)


def test_fp8_wgmma_step_is_the_larger_of_landed_bytes_and_its_sustained_rate():
    # H200 fp8 at 1979 TFLOP/s: 8192.6 flop/clk per SM. 128x128x128: 512 clk of math + 32 KiB landed at
    # 128 B/clk = 768 > 512 / 0.70; 256x128x64: 512 + 24 KiB / 128 = 704 < 512 / 0.70 = 731.
    h200 = hardware.get("h200")
    math_clk = 2 * 128 * 128 * 128 / (1979e12 / (132 * 1.83e9))
    square, tall = (GemmConfig(bm, 128, bk, num_warps=8, num_stages=3) for bm, bk in ((128, 128), (256, 64)))
    c = Candidates([square, tall], h200, "fp8")
    assert c.wgmma.all()
    assert c.compute_clk[0] == pytest.approx(math_clk + 256 * 128 / 128)
    assert c.compute_clk[1] == pytest.approx(math_clk / h200.model.wgmma_fp8_efficiency.value)


def test_wgmma_warpgroups_each_carry_their_share_of_the_loop_overhead():
    h200 = hardware.get("h200")
    w4, w8 = (GemmConfig(128, 128, 64, num_warps=nw, num_stages=3) for nw in (4, 8))
    small = GemmConfig(32, 64, 64, num_warps=8, num_stages=3)  # mma.sync: no warpgroups
    c = Candidates([w4, w8, small], h200, "bf16")
    assert list(c.overhead_share) == [1.0, 0.5, 1.0]


def test_gfx950_reads_an_mn_major_operand_at_half_rate():
    gfx = hardware.get("gfx950")
    cfg = GemmConfig(128, 128, 64, num_warps=4, num_stages=2, matrix_instr_nonkdim=16)
    nt, nn = (Candidates([cfg], gfx, "bf16", Traits(layout)) for layout in ("nt", "nn"))
    tt, tn = (Candidates([cfg], gfx, "bf16", Traits(layout)) for layout in ("tt", "tn"))
    b_part = nn.lds_clk[0] - nt.lds_clk[0]  # only B is MN-major: B's reads cost twice
    a_part = tt.lds_clk[0] - nt.lds_clk[0]  # only A is
    assert b_part > 0 and a_part > 0
    assert nt.lds_clk[0] == pytest.approx(a_part + b_part)  # each is its K-major cost paid once more
    assert tn.lds_clk[0] == pytest.approx(2 * nt.lds_clk[0])  # both MN-major


def test_persistent_holds_one_workgroup_per_cu():
    h200 = hardware.get("h200")
    small = GemmConfig(64, 64, 32, num_warps=4, num_stages=2)
    assert Candidates([small], h200, "bf16").resident[0] > 1
    assert Candidates([small], h200, "bf16", Traits("nt", persistent=True)).resident[0] == 1


def test_persistent_workgroup_fills_the_matrix_unit_with_its_warpgroups():
    # One workgroup per SM for the whole run: its own warpgroups (one per 4 warps, the SM's 4
    # sub-partitions) hide each other's loop overhead; a one-tile-per-program kernel gets none of it.
    h200 = hardware.get("h200")
    w4, w8 = (GemmConfig(128, 256, 64, num_warps=nw, num_stages=3) for nw in (4, 8))
    persistent = Candidates([w4, w8], h200, "bf16", Traits("nt", persistent=True))
    assert list(persistent.streams) == [1.0, 2.0]
    assert list(Candidates([w4, w8], h200, "bf16").streams) == [1.0, 1.0]
    # Measured (bench/results/perfmodel-h200-raw-persistent-2026-12-01.json, fit shape
    # 2048x8192x8192): 128x256x64 w8 s3 450 us in bf16 (best 447), 128x256x128 w8 s3-s4 188-189 us
    # in fp8 (the best); the two-stage BK 128 / 256 tiles the model picked before, 587 and 272 us.
    # The model ranks 128x256 and 256x128 within 1% of each other (256x128x64 w8 s4 measured 464 us in
    # bf16, 256x128x128 w8 s4 211 us in fp8): the pick is an 8-warp tile of 128 x 256 elements at that
    # BK with 3 stages or more.
    for dtype, bk in (("bf16", 64), ("fp8", 128)):
        pick = select("matmul", (2048, 8192, 8192), dtype, "h200", Traits("nt", persistent=True)).best.config
        assert (pick.block_m * pick.block_n, pick.block_k, pick.num_warps) == (128 * 256, bk, 8)
        assert pick.num_stages >= 3


def test_fp8_nn_pick_is_tall_and_thin_on_h200():
    # Measured (bench/results/perfmodel-h200-raw-nn-2026-12-01.json): BM 256 with BN 32-64 wins.
    pick = select("matmul", (4096, 4096, 8192), "fp8", "h200", Traits("nn")).best.config
    assert pick.block_m >= 2 * pick.block_n


def test_tune_json_and_layout_option():
    r = CliRunner().invoke(app, ["tune", "--op", "matmul", "--shape", "2048,2048,2048", "--dtype", "fp8",
                                 "--arch", "h200", "--layout", "nn", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["layout"] == "nn" and data["device"] == "H200" and data["predicted"]
    assert set(data["pick"]) >= {"config", "time_s", "bound", "lds_bytes"} and data["select_s"] < 1.0
    sel = select("matmul", (2048, 2048, 2048), "fp8", "h200", Traits("nn"))
    assert data["pick"]["label"] == sel.best.config.label()
    assert np.isclose(data["pick"]["time_s"], sel.best.time_s)


def test_tune_follows_the_named_triton_release():
    # 3.6's ptxas serializes the one-tile nt kernel's BN-256 8-warp tile (T12), 3.9's does not: on a wide
    # shape the 3.9 pick is the 128x256 tile the 3.6 pick avoids.
    def tune(release: str) -> dict:
        r = CliRunner().invoke(app, ["tune", "--op", "matmul", "--shape", "2048,4096,1024", "--dtype", "bf16",
                                     "--arch", "h200", "--triton", release, "--json"])
        assert r.exit_code == 0, r.output
        return json.loads(r.output)

    old, new = tune("3.6.0"), tune("3.9.0")
    assert (old["triton"], new["triton"]) == ("3.6.0", "3.9.0")
    assert (old["pick"]["config"]["block_n"], new["pick"]["config"]["block_n"]) == (128, 256)
    for data, release in ((old, (3, 6)), (new, (3, 9))):
        sel = select("matmul", (2048, 4096, 1024), "bf16", "h200", Traits("nt", triton=release))
        assert data["pick"]["label"] == sel.best.config.label()
    bad = CliRunner().invoke(app, ["tune", "--op", "matmul", "--shape", "64,64,64", "--triton", "nightly"])
    assert bad.exit_code != 0 and "not a Triton version" in bad.output


KERNELS = '''
import triton
import triton.language as tl

@triton.jit
def tutorial(a_ptr, b_ptr, stride_am, stride_ak, stride_bk, stride_bn, K: tl.constexpr):
    offs_am = tl.arange(0, 16)
    offs_bn = tl.arange(0, 16)
    offs_k = tl.arange(0, K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    a = tl.load(a_ptrs)
    b = tl.load(b_ptrs)
    acc = tl.dot(a, b)

@triton.jit
def linear(x_ptr, w_ptr, stride_xm, stride_wn):
    rm = tl.arange(0, 16)
    rn = tl.arange(0, 16)
    rk = tl.arange(0, 16)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rk[None, :])
    w = tl.load(w_ptr + rn[:, None] * stride_wn + rk[None, :])
    acc = tl.dot(x, tl.trans(w))

@triton.jit
def row_major_b(a_ptr, b_ptr, stride_am, stride_bk):
    rm = tl.arange(0, 16)
    rn = tl.arange(0, 16)
    rk = tl.arange(0, 16)
    a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :])
    acc = tl.dot(a, b)
'''


@pytest.mark.parametrize(("kernel", "layout", "read"), [
    ("tutorial", "nn", False),  # both strides are arguments: row-major assumed
    ("linear", "nt", True),     # W[N,K] K-contiguous, transposed in the dot
    ("row_major_b", "nn", True),
])
def test_dot_layout_from_the_loads(kernel, layout, read):
    module = cst.parse_module(KERNELS)
    names = src.aliases(module)
    assert src.dot_layout(src.kernels(module, names)[kernel], names) == (layout, read)


@pytest.mark.parametrize("device", ["h200", "gfx950"])
def test_narrow_mn_major_rows_stream_whole_fetch_units(device):
    # M = 16 streams B from DRAM: B[K,N] (N contiguous) in BN-element rows. A 32-wide bf16 row is
    # 64 B, half the 128-byte fetch unit, so it moves B twice over; a K-major W[N,K] does not care.
    dev = hardware.get(device)
    nonk, nw = (16, 2) if dev.vendor == "amd" else (0, 4)  # gfx950: each wave 16 columns at least
    narrow, wide = (GemmConfig(16, bn, 128, num_warps=nw, num_stages=3, matrix_instr_nonkdim=nonk) for bn in (32, 64))
    assert dev.model.dram_fetch_bytes.value == 128
    # Triton 3.9: no measured lone K-step (T20, Triton 3.6's nn only), so the K-step is the same in both layouts
    traits = {lay: Traits(lay, triton=(3, 9)) for lay in ("nt", "nn")}
    problem = {lay: Gemm(16, 8192, 28672, "bf16", traits[lay]) for lay in ("nt", "nn")}
    out = {lay: evaluate(problem[lay], Candidates([narrow, wide], dev, "bf16", traits[lay])) for lay in ("nt", "nn")}
    (t_nt, _), (t_nn, bound_nn) = out["nt"], out["nn"]
    assert t_nn[0] > t_nt[0] and BOUNDS[int(bound_nn[0])] == "dram"  # 64 B rows: twice the DRAM bytes
    assert t_nn[1] == t_nt[1]  # 128 B rows: none wasted


def test_short_k_major_runs_stream_whole_fetch_units():
    # N = 32 streams A[M,K] (K contiguous) from DRAM once. One K-step reads BK elements of each A row:
    # BK 32 bf16 is 64 B, half the 128-byte fetch unit, and the other half is the next K-step's run,
    # a separate DRAM access: BK 32 moves A twice over where BK 64 (128 B runs) moves it once.
    dev = hardware.get("h200")
    short, full = (GemmConfig(256, 32, bk, num_warps=4, num_stages=3) for bk in (32, 64))
    seconds, bound = evaluate(Gemm(262144, 32, 128, "bf16", Traits("nt")), Candidates([short, full], dev, "bf16", Traits("nt")))
    assert BOUNDS[int(bound[0])] == "dram" and seconds[0] > 1.5 * seconds[1]


def test_triton_release_reads_major_and_minor():
    assert triton_release("3.6.0") == (3, 6)
    assert triton_release("3.9.0+git1a2b3c") == (3, 9)
    assert triton_release("3.10") == (3, 10)
    with pytest.raises(ValueError, match="not a Triton version"):
        triton_release("nightly")


def test_nn_16bit_wgmma_k_step_is_bound_by_shared_memory_traffic():
    # T14 (evidence note 2026-12-01, eleventh look): on nn bf16 2048x8192x8192 (a fit shape, the layout probe)
    # 128x256x64 and 256x128x64 w8 s4 take 1249 and 1398 clk per K-step, 105 B/clk of wgmma operand reads plus
    # landed bytes both (128 and 144 KiB). The model prices the two K-steps in that ratio and ranks 128x256
    # first; nt keeps math + landed bytes, which prices them alike.
    h200 = hardware.get("h200")
    wide, tall = (GemmConfig(bm, bn, 64, num_warps=8, num_stages=4) for bm, bn in ((128, 256), (256, 128)))
    rate = h200.model.wgmma_mn_major_smem_bytes_per_clk.value
    nn = Candidates([wide, tall], h200, "bf16", Traits("nn"))
    assert list(nn.compute_clk) == pytest.approx([128 * 1024 / rate, 144 * 1024 / rate])
    nt = Candidates([wide, tall], h200, "bf16", Traits("nt"))
    assert list(nt.compute_clk) == pytest.approx([1024 + 48 * 1024 / 128] * 2, rel=1e-3)
    problem = Gemm(2048, 8192, 8192, "bf16", Traits("nn"))
    t, _ = evaluate(problem, nn)
    assert t[1] / t[0] == pytest.approx(391.1 / 349.4, rel=0.03)  # the probe: 391.1 and 349.4 us
    assert select("matmul", (2048, 8192, 8192), "bf16", "h200", Traits("nn")).best.config.block_n == 256
    # fp8 nn (the transposing path), other devices: unchanged
    fp8 = Candidates([wide, tall], h200, "fp8", Traits("nn"))
    assert not np.allclose(fp8.compute_clk, [128 * 1024 / rate, 144 * 1024 / rate])
    assert hardware.get("mi350x").model.wgmma_mn_major_smem_bytes_per_clk is None


def test_scalar_b_k_step_is_one_chain_of_requests_and_the_scalar_loads_latency():
    """T18 (fourteenth look): a 16-bit scalar-B K-step (Triton 3.6, N off 16) issues its B loads one warp-wide request
    at a time, waits their latency rounds, then stores and multiplies: the workgroup's own requests are in its own
    time, and the wait is [model] scalar_b_latency_clk, not dram_latency_ns. Without it the model picked the one-resident
    BM/BN-256 w8 tiles on the MID fit shapes (bf16 350x20001x2560: 128x256x64 w8 s4, 0.698 of the best)."""
    h200 = hardware.get("h200")
    without = h200.model_copy(update={"model": h200.model.model_copy(update={"scalar_b_latency_clk": None})})
    cfgs = [GemmConfig(128, 256, 64, num_warps=8, num_stages=4), GemmConfig(128, 128, 32, num_warps=4, num_stages=3)]
    shape = Gemm(350, 20001, 2560, "bf16", Traits("nn"))
    t, t0 = ([predict(shape, cfg, dev).time_s for cfg in cfgs] for dev in (h200, without))
    assert t0[0] < t0[1] and t[1] < t[0]  # measured: 128x128x32 w4 s3 201 us, 128x256x64 w8 s4 1.43x that
    fp16 = Gemm(350, 20001, 2560, "fp16", Traits("nn"))
    assert [predict(fp16, cfg, h200).time_s for cfg in cfgs] == t  # fp16 compiles as bf16: the same chain
    # the term on a lone workgroup (one tile, one wave, 100 K-steps): own requests in, latency rounds at the new figure
    lone = Gemm(128, 125, 3200, "bf16", Traits("nn"))
    c, c0 = (Candidates(cfgs[1:], dev, "bf16", Traits("nn")) for dev in (h200, without))
    (a,), _ = evaluate(lone, c)
    (b,), _ = evaluate(lone, c0)
    rounds, requests = c.scalar_b_latencies[0], c.scalar_b_requests[0]
    per_step = (requests * h200.model.scalar_load_request_clk.value
                + rounds * (h200.model.scalar_b_latency_clk.value - h200.model.dram_latency_ns.value * 1e-9 * h200.clock_hz))
    assert a - b == pytest.approx(100 * per_step / h200.clock_hz, rel=1e-6)
    # fp8 (byte loads, its own loop), N on 16 (vector loads) and a Triton without a table keep T13-T17's pricing
    for dev_shape in (Gemm(350, 20001, 2560, "fp8", Traits("nn")), Gemm(352, 20000, 2560, "bf16", Traits("nn")),
                      Gemm(350, 20001, 2560, "bf16", Traits("nn", triton=(3, 9)))):
        c, c0 = (Candidates(cfgs, dev, dev_shape.dtype, dev_shape.traits) for dev in (h200, without))
        assert list(evaluate(dev_shape, c)[0]) == list(evaluate(dev_shape, c0)[0])


def test_fp8_nn_at_n_on_16_reads_triton_36s_aligned_compile(monkeypatch):
    """T19 (fifteenth look): for Triton 3.6 on sm_90 (porter/perfmodel/data/triton-3.6-sm90a-nn-aligned.json, every fp8
    config of the H200 space compiled for nn with M, N, K and the strides 16-divisible), registers, shared memory and
    legality at N on 16 are the compile's, not the count's; N off 16 keeps its own table, other dtypes their count."""
    from porter.perfmodel import gemm

    h200 = hardware.get("h200")
    table = compiled_aligned(Traits("nn"), "sm_90", "fp8")
    assert table is not None and len(table) == 420
    assert compiled_aligned(Traits("nn", triton=(3, 9)), "sm_90", "fp8") is None
    assert compiled_aligned(Traits("nn"), "sm_100", "fp8") is None
    assert compiled_aligned(Traits("nn"), "sm_90", "bf16") is None
    cfgs = [GemmConfig(256, 64, 64, num_warps=4, num_stages=3), GemmConfig(256, 64, 128, num_warps=8, num_stages=2),
            GemmConfig(16, 64, 128, num_warps=4, num_stages=4)]
    c, c39 = (Candidates(cfgs, h200, "fp8", Traits("nn", triton=t)) for t in ((3, 6), (3, 9)))
    # 256x64x64 w4 s3 (wgmma): counted 168 registers, three resident; compiled 226, two
    assert (c39.regs[0], c39.resident[0]) == (168, 3) and (c.regs[0], c.resident[0]) == (226, 2)
    # 256x64x128 w8 s2: counted 80 KiB of shared memory (two stages of the tiles); compiled 72 KiB
    assert (c39.lds[1], c.lds[1]) == (81920, 73728)
    # 16x64x128 w4 s4 (mma.sync): the compile allocates num_stages - 1 buffers of the A and B tiles
    assert (c39.lds[2], c.lds[2]) == (4 * (16 + 64) * 128, 3 * (16 + 64) * 128)
    # on the fit shapes fp8 512x11008x4096 and 512x12288x4096 the count picked 256x64x64 w4 s3 (201 and 199 us, 0.68 of
    # the best), where 256x64x128 w8 s2 measures 160 us: without T19 the model ranks the first first, with it the second
    for n in (11008, 12288):
        t36, _ = evaluate(Gemm(512, n, 4096, "fp8", Traits("nn", triton=(3, 6))), c)
        t39, _ = evaluate(Gemm(512, n, 4096, "fp8", Traits("nn", triton=(3, 9))), c39)
        assert t39[0] < t39[1] and t36[1] < t36[0]
    # N off 16 reads the scalar-B table alone: its arrays are the same with or without the aligned table
    monkeypatch.setattr(gemm, "COMPILED_ALIGNED_TABLES", {})
    bare = Candidates(cfgs, h200, "fp8", Traits("nn", triton=(3, 6)))
    assert (bare.regs[0], bare.resident[0]) == (168, 3)
    for name in ("scalar_b_legal", "scalar_b_resident", "scalar_b_lds", "scalar_b_regs", "scalar_b_requests"):
        assert np.array_equal(getattr(bare, name), getattr(c, name)), name
    off16 = Gemm(72, 32001, 4096, "fp8", Traits("nn", triton=(3, 6)))
    assert np.array_equal(evaluate(off16, bare)[0], evaluate(off16, c)[0])


def test_nn_mma_sync_k_step_reads_the_measured_lone_step_on_triton_36(monkeypatch):
    """T20 (sixteenth section): for Triton 3.6 on sm_90 at N on 16, an mma.sync config's SM K-step is its lone K-step as
    measured on the H200 (porter/perfmodel/data/triton-3.6-sm90a-nn-lone.json) plus each further co-resident workgroup's
    pipes; wgmma configs, N off 16, other releases and nt keep the analytical step."""
    from porter.perfmodel import gemm

    h200 = hardware.get("h200")
    table = lone_steps(Traits("nn"), "sm_90", "fp8")
    assert table is not None and all(lone_steps(Traits("nn"), "sm_90", dt) is not None for dt in ("bf16", "fp16"))
    assert lone_steps(Traits("nn", triton=(3, 9)), "sm_90", "fp8") is None
    assert lone_steps(Traits("nt"), "sm_90", "fp8") is None
    assert lone_steps(Traits("nn"), "gfx950", "fp8") is None
    cfgs = [GemmConfig(16, 64, 256, num_warps=4, num_stages=4), GemmConfig(16, 32, 256, num_warps=4, num_stages=5),
            GemmConfig(16, 64, 128, num_warps=4, num_stages=4), GemmConfig(32, 128, 64, num_warps=4, num_stages=5),
            GemmConfig(128, 64, 64, num_warps=4, num_stages=3)]
    nn36 = Traits("nn", triton=(3, 6))
    c = Candidates(cfgs, h200, "fp8", nn36)
    # the measured lone steps (clk at the model's 1830 MHz): BK 256 w4 s4 is slow, its s5 twin not
    assert c.lone_clk[0] == table["16x64x256 w4 s4"].lone_clk and 2100 < c.lone_clk[0] < 2400
    assert 1200 < c.lone_clk[1] < 1400 and np.isnan(c.lone_clk[4])  # 128x64x64: wgmma, analytical
    monkeypatch.setattr(gemm, "LONE_STEP_TABLES", {})
    bare = Candidates(cfgs, h200, "fp8", nn36)
    assert np.isnan(bare.lone_clk).all()
    # fit shapes where the model without the table picked 16x64x256 w4 s4 (0.595 and 0.562 of the best): measured
    # 16x3584x18944: 16x32x256 w4 s5 56.8 us, 16x64x128 w4 s4 84.5, 16x64x256 w4 s4 95.4;
    # 32x11008x4096: 32x128x64 w4 s5 30.4 us, 16x64x128 w4 s4 54.1, 16x64x256 w4 s4 55.2
    t, _ = evaluate(Gemm(16, 3584, 18944, "fp8", nn36), c)
    t0, _ = evaluate(Gemm(16, 3584, 18944, "fp8", nn36), bare)
    assert t[1] < t[2] < t[0] and t0[0] < t0[1]
    t, _ = evaluate(Gemm(32, 11008, 4096, "fp8", nn36), c)
    t0, _ = evaluate(Gemm(32, 11008, 4096, "fp8", nn36), bare)
    assert np.argmin(t) == 3 and np.argmin(t0) != 3
    # the wgmma config, and N off 16, are priced as without the table
    assert t[4] == t0[4]
    off16 = Gemm(16, 3585, 18944, "fp8", nn36)
    assert np.array_equal(evaluate(off16, c)[0], evaluate(off16, bare)[0])
