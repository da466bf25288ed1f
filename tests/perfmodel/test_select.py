"""Selection: the pick is the model's argmin over the legal space, fast enough to need no warm-up."""

import pytest

from porter import hardware
from porter.perfmodel import Gemm, predict, select
from porter.perfmodel.select import candidates, space


@pytest.mark.parametrize("arch", ["gfx950", "h200", "gfx942"])
def test_pick_is_the_best_legal_candidate(arch):
    sel = select("matmul", (2048, 3000, 1024), "bf16", arch)
    dev = hardware.get(arch)
    brute = min(predict(Gemm(2048, 3000, 1024), c, dev).time_s for c in candidates(dev.name, "bf16").configs)
    assert sel.best.time_s == pytest.approx(brute)
    assert sel.runner_up is not None and sel.runner_up.time_s >= sel.best.time_s
    assert sel.considered == len(candidates(dev.name, "bf16"))


def test_amd_space_has_the_backend_knobs_and_nvidia_space_does_not():
    amd = space(hardware.get("gfx950"), "bf16")
    assert {c.matrix_instr_nonkdim for c in amd} == {16, 32}
    assert {c.waves_per_eu for c in amd} == {0, 2}
    assert {c.kpack for c in amd} == {1}
    assert {c.kpack for c in space(hardware.get("gfx942"), "bf16")} == {1, 2}
    nv = space(hardware.get("h200"), "bf16")
    assert {c.matrix_instr_nonkdim for c in nv} == {0}


def test_decode_shapes_pick_skinny_tiles_and_square_ones_big_tiles():
    decode = select("matmul", (16, 8192, 8192), "bf16", "gfx950").best.config
    square = select("matmul", (8192, 8192, 8192), "bf16", "gfx950").best.config
    assert decode.block_m <= 32 < square.block_m


def test_memory_bound_ops_use_the_roofline():
    sel = select("softmax", (4096, 8192), "bf16", "gfx950")
    assert sel.best.config.block_size >= 8192
    assert sel.best.bound in ("dram", "memory-latency")
    # 2 x rows x cols x 2 B at 8 TB/s is the floor
    assert sel.best.time_s >= 2 * 4096 * 8192 * 2 / 8e12


def test_errors_name_what_is_known():
    with pytest.raises(ValueError, match="unknown op 'conv'"):
        select("conv", (1, 2, 3), "bf16", "gfx950")
    with pytest.raises(ValueError, match="shape M,N,K"):
        select("matmul", (1, 2), "bf16", "gfx950")
    with pytest.raises(KeyError, match="tf32"):
        select("matmul", (64, 64, 64), "tf32", "gfx950")
