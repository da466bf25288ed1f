"""porter.perfmodel.isa and .lanes: the instruction-mix model of C++/HIP kernels, on hand-built
kernels whose every term is worked out here from the H200 data (porter/hardware/data/h200.toml:
132 SMs, 4 SMSPs, 1830 MHz, 32 lanes, 4.8 TB/s x hbm_efficiency 0.67, 32-byte sectors)."""

from __future__ import annotations

import pytest

from porter import hardware
from porter.perfmodel import isa, lanes
from porter.perfmodel.isa import Instr, KernelIsa, Launch

H200 = hardware.get("H200")
HBM = 4.8e12 * 0.67
CLK = 1830e6


def test_lane_values() -> None:
    assert lanes.add(1, 4) == 5 and lanes.add(1, None) is None and lanes.add(0, lanes.SCALED) == lanes.SCALED
    assert lanes.times(0, 0) == 0  # uniform x uniform
    assert lanes.times(1, 0) == lanes.SCALED  # threadIdx.x times a runtime stride
    assert lanes.scale(1, 4) == 4 and lanes.shift_right(1, 5) == 0 and lanes.shift_right(64, 2) == 16
    assert lanes.merge(4, 4) == 4 and lanes.merge(4, 0) is None
    assert lanes.pattern(0, 4) == ("uniform", 0)
    assert lanes.pattern(4, 4) == ("contiguous", 0)
    assert lanes.pattern(16, 16) == ("contiguous", 0)
    assert lanes.pattern(132, 4) == ("strided", 132)
    assert lanes.pattern(lanes.SCALED, 4) == ("strided", 0)
    assert lanes.pattern(None, 4) == ("irregular", 0)


def test_lane_bytes_by_pattern() -> None:
    assert Instr("global_load", 4).lane_bytes(32, 32) == 4
    assert Instr("global_load", 4, pattern="uniform").lane_bytes(32, 32) == 4 / 32
    assert Instr("global_load", 4, pattern="strided", stride=8).lane_bytes(32, 32) == 8
    assert Instr("global_load", 4, pattern="strided", stride=4096).lane_bytes(32, 32) == 32
    assert Instr("global_load", 4, pattern="irregular").lane_bytes(32, 32) == 32
    with pytest.raises(ValueError):
        Instr("global_load", 4, pattern="diagonal")
    with pytest.raises(ValueError):
        Instr("vector_load")


def _copy(store: Instr) -> KernelIsa:
    return KernelIsa("copy", (Instr("other"), Instr("global_load", 4), store, Instr("other")), (), 16, 0)


def test_copy_is_dram_bound_and_a_scattered_store_multiplies_the_traffic() -> None:
    n = 1 << 26
    launch = Launch(n, 256, 2 * n * 4, 4.0, "bytes")
    p = isa.predict(_copy(Instr("global_store", 4)), launch, H200)
    assert p.terms["dram"] == pytest.approx(2 * n * 4 / HBM)
    # 4 instructions per thread, 2^21 warps over 528 SMSPs at one instruction per clock
    assert p.terms["issue"] == pytest.approx(4 * n / 32 / (132 * 4 * CLK))
    # strided store: a 32-byte sector per 4-byte lane: (4 + 32) / (4 + 4) = 4.5 x the compulsory bytes
    q = isa.predict(_copy(Instr("global_store", 4, pattern="strided", stride=132)), launch, H200)
    assert q.terms["dram"] == pytest.approx(4.5 * p.terms["dram"])
    assert q.terms["cache"] == pytest.approx(p.terms["cache"] * 36 / 8)
    assert q.time_s > p.time_s


def test_hot_loop_runs_until_the_threads_share_of_the_work_is_done() -> None:
    # loop: two loads, one fma (2 flops) per iteration; the launch: depth 1024 -> 2048 flops per thread
    body = (Instr("global_load", 4), Instr("global_load", 4, pattern="uniform"), Instr("fp", flops=2), Instr("other"))
    k = KernelIsa("dot", (Instr("other"), *body, Instr("global_store", 4)), ((1, 2, 3, 4),), 32, 0)
    counts, moved, trip, batches = isa.dynamic_counts(k, Launch(1 << 20, 256, 12 << 20, 2048.0, "flops"), 32)
    assert trip == 1024 and batches == 1024
    assert counts["global_load"] == 2048 and counts["fp"] == 1024 and counts["other"] == 1 + 1024
    assert counts["flops"] == 2048
    assert moved["global_load"] == pytest.approx(1024 * (4 + 4 / 32))


def test_an_atomic_after_a_reduction_is_issued_once_per_wave_or_workgroup() -> None:
    launch = Launch(1 << 24, 256, 64 << 20, 4.0, "bytes")
    per_thread = KernelIsa("a", (Instr("global_load", 4), Instr("atomic", 4, pattern="uniform")), (), 8, 0)
    per_wave = KernelIsa("w", (Instr("global_load", 4), Instr("shuffle"), Instr("fp", flops=1),
                               Instr("atomic", 4, pattern="uniform")), (), 8, 0)
    per_block = KernelIsa("b", (Instr("global_load", 4), Instr("lds_write", 4), Instr("barrier"),
                                Instr("atomic", 4, pattern="uniform")), (), 8, 1024)
    t = {k.name: isa.predict(k, launch, H200) for k in (per_thread, per_wave, per_block)}
    assert t["a"].terms["atomic"] == pytest.approx((1 << 24) / CLK) and t["a"].bound == "atomic"
    assert t["w"].terms["atomic"] == pytest.approx((1 << 24) / 32 / CLK)
    assert t["b"].terms["atomic"] == pytest.approx((1 << 24) / 256 / CLK)


def test_residency_by_waves_registers_and_lds() -> None:
    k = KernelIsa("k", (Instr("other"),), (), 32, 0)
    assert isa.resident_workgroups(k, 256, H200) == 8  # 64 warps / 8
    assert isa.resident_workgroups(KernelIsa("r", (), (), 128, 0), 256, H200) == 2  # 256 KiB / (128 x 4 x 256)
    assert isa.resident_workgroups(KernelIsa("l", (), (), 16, 100_000), 256, H200) == 2  # 228 KiB / 100 kB


def test_verdict_band() -> None:
    assert isa.verdict(1.0, 1.04, 0.05)[1] == "equal" and isa.verdict(1.0, 1.04, 0.02)[1] == "faster"
    assert isa.verdict(0.5, 1.0, 0.05) == (0.5, "faster")
    assert isa.verdict(2.0, 1.0, 0.05) == (2.0, "slower")
