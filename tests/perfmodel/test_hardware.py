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


def test_amd_targets_and_their_lds_come_from_the_data():
    assert hardware.amd_archs() == ("gfx942", "gfx950")
    # 64 and 32 four-byte banks (HARDWARE.md; the gfx950 figure is third-party, marked "?").
    assert [hardware.get(a).spec.lds_banks.value for a in ("gfx950", "gfx942")] == [64, 32]
    assert hardware.get("gfx950").spec.lds_banks.uncertain
    assert {d.spec.vgpr_granule.value for d in hardware.devices()} == {8}


# Numbers that are facts about one target: each lives in porter/hardware/data and nowhere else.
_TARGET_FACTS = {163840, 65536, 2200}
_FACT_EXPRESSIONS = {(160, 1024), (64, 1024)}


def _code_constants(path):
    """Integer constants of a module's code (docstrings and messages are text, not numbers), and the
    products of two literals (`160 * 1024`)."""
    import ast

    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            yield node.lineno, node.value
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
              and all(isinstance(x, ast.Constant) and type(x.value) is int for x in (node.left, node.right))):
            yield node.lineno, (node.left.value, node.right.value)


def test_no_target_fact_is_copied_into_code():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    copies = [f"{path.relative_to(root)}:{line}: {value}"
              for folder in ("porter", "agents") for path in sorted((root / folder).rglob("*.py"))
              for line, value in _code_constants(path) if value in _TARGET_FACTS or value in _FACT_EXPRESSIONS]
    assert copies == []
