"""porter/hardware: every device loads, every number has a source, lookups by name and arch."""

import pytest

from porter import hardware


def test_every_device_loads_with_a_source_for_every_value():
    names = {d.name for d in hardware.devices()}
    assert names == {"MI300X", "MI350X", "MI355X", "H100", "H200", "B200"}
    for d in hardware.devices():
        for field, value, source in d.rows():
            assert source.strip(), f"{d.name}.{field} has no source"
            assert value != ""


def test_lookup_by_arch_names_the_porting_target():
    assert hardware.get("gfx950").name == "MI350X"
    assert hardware.get("MI355X").arch == "gfx950"
    assert hardware.get("sm_90").name == "H100"
    assert hardware.get("h200").spec.hbm_tbps.value == 4.8
    with pytest.raises(KeyError, match="known: .*MI350X"):
        hardware.get("gfx1100")


@pytest.mark.parametrize(("device", "expected"), [
    # v_mfma_f32_16x16x32_bf16: 2*16*16*32 FLOP in 16 cycles per SIMD, 4 SIMDs (HARDWARE.md)
    ("MI350X", 2 * 16 * 16 * 32 / 16 * 4),
    # 1307 TFLOP/s / (304 CUs x 2.1 GHz), ROCm gpu-specs: half gfx950's rate per CU
    ("MI300X", 1307e12 / (304 * 2.1e9)),
    # 989 TFLOP/s / (132 SMs x 1.83 GHz), the datasheet's clock for its rates
    ("H100", 989e12 / (132 * 1.83e9)),
])
def test_matrix_rate_per_cu_per_clock(device, expected):
    assert hardware.get(device).flops_per_clk_per_cu("bf16") == pytest.approx(expected, rel=2e-3)


def test_a_dtype_without_a_matrix_rate_is_a_clear_error():
    with pytest.raises(KeyError, match="no native tf32 matrix rate"):
        hardware.get("gfx950").peak_tflops("tf32")


def test_uncertain_values_stay_marked():
    mi350 = hardware.get("MI350X")
    assert mi350.model.dram_latency_ns.uncertain
    assert not mi350.spec.compute_units.uncertain
    assert mi350.matrix_tflops["bf16"].source.startswith("(d)")
