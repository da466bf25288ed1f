"""porter.verify.compare: tolerance table and comparisons of saved and recorded arrays."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from porter.verify.compare import EPS, compare_arrays, compare_files, load_npy, tolerance

ARRAYS = Path(__file__).parents[2] / "fixtures" / "verify" / "arrays"
RECORDED = Path(__file__).parents[2] / "fixtures" / "verify" / "recorded"


def cmp(ref: str, got: str, dtype: str = "f32", cls: str = "elementwise", **kw):
    return compare_files(ARRAYS / f"{ref}.npy", ARRAYS / f"{got}.npy", name="out", dtype=dtype, cls=cls, **kw)


def test_tolerance_table() -> None:
    assert tolerance("f32", "elementwise") == (1e-5, 1e-6)
    assert tolerance("f16", "elementwise") == (2e-3, 1e-5)
    assert tolerance("i32", "reduction", 1000) == (0.0, 0.0)
    assert tolerance("f32", "exact") == (0.0, 0.0)
    rtol, atol = tolerance("f32", "reduction", 4096)
    assert rtol == pytest.approx(4 * 64 * EPS["f32"]) and atol == pytest.approx(64e-6)
    assert tolerance("f32", "reduction", 4)[0] == 1e-5  # never tighter than elementwise
    assert tolerance("f32", "matmul", 1024)[0] == pytest.approx(1024 * 2.0**-23)
    # Half-precision GEMMs accumulate in f32: K * eps(f32), floored at the f16 elementwise rtol.
    assert tolerance("f16", "matmul", 1024)[0] == 2e-3
    assert tolerance("bf16", "matmul", 1 << 20)[0] == pytest.approx((1 << 20) * 2.0**-23)


def test_identical_and_close_pass() -> None:
    same = cmp("f32_ref", "f32_ref")
    assert same.passed and same.max_abs_error == 0 and same.worst_index is None and same.elements == 128
    close = cmp("f32_ref", "f32_close")
    assert close.passed and 0 < close.max_rel_error < 1e-5


def test_outside_tolerance_reports_worst_element_unravelled() -> None:
    far = cmp("f32_ref", "f32_far")
    assert not far.passed and far.mismatches == 2 and far.nonfinite_mismatches == 0
    assert far.worst_index == (5, 11)
    assert far.max_abs_error == pytest.approx(1e-3, rel=1e-3)
    ref = load_npy(ARRAYS / "f32_ref.npy")
    assert far.worst_reference == repr(float(ref[5, 11]))
    assert "2 of 128 elements outside rtol=1e-05" in far.reason
    # The spec can loosen the table.
    assert cmp("f32_ref", "f32_far", rtol=0.0, atol=2e-3).passed


def test_nan_and_inf_in_the_same_places_pass() -> None:
    c = cmp("f32_special_ref", "f32_special_ref")
    assert c.passed and c.max_abs_error == 0 and math.isfinite(c.max_rel_error)


def test_nan_payloads_do_not_matter() -> None:
    assert cmp("f32_special_ref", "f32_special_other_nan").passed
    assert cmp("f32_special_ref", "f32_special_other_nan", cls="exact").passed


def test_nan_where_reference_is_finite_fails() -> None:
    c = cmp("f32_special_ref", "f32_nan_for_finite")
    assert not c.passed and c.nonfinite_mismatches == 1 and c.worst_index == (6, 7)
    assert c.worst_port == "nan" and "NaN/Inf" in c.reason


def test_inf_sign_flip_fails() -> None:
    c = cmp("f32_special_ref", "f32_inf_sign_flipped")
    assert not c.passed and c.worst_index == (1, 2) and (c.worst_reference, c.worst_port) == ("inf", "-inf")
    assert not cmp("f32_special_ref", "f32_inf_sign_flipped", cls="exact").passed


def test_integers_are_exact() -> None:
    assert cmp("i32_ref", "i32_ref", dtype="i32").passed
    c = cmp("i32_ref", "i32_off_by_one", dtype="i32", cls="elementwise")
    assert not c.passed and c.worst_index == (2, 1) and c.max_abs_error == 1 and c.mismatches == 1


def test_half_precision_one_ulp() -> None:
    assert cmp("f16_ref", "f16_one_ulp", dtype="f16").passed
    assert not cmp("f16_ref", "f16_one_ulp", dtype="f16", cls="exact").passed
    assert cmp("bf16_ref", "bf16_one_ulp", dtype="bf16").passed
    c = cmp("bf16_ref", "bf16_eight_ulp", dtype="bf16")
    assert not c.passed and c.worst_index == (4,)


def test_bf16_bits_widen_exactly() -> None:
    bits = np.array([0x3F80, 0xC000, 0x7F80, 0x7FC0], dtype=np.uint16)  # 1, -2, +Inf, NaN
    c = compare_arrays(bits, bits, name="b", dtype="bf16", cls="elementwise")
    assert c.passed
    shifted = np.array([0x3F80, 0xC000, 0xFF80, 0x7FC0], dtype=np.uint16)  # +Inf -> -Inf
    assert compare_arrays(bits, shifted, name="b", dtype="bf16", cls="elementwise").worst_index == (2,)


def test_reduction_order_needs_the_reduction_class() -> None:
    assert not cmp("sum4096_pairwise", "sum4096_sequential").passed
    assert cmp("sum4096_pairwise", "sum4096_sequential", cls="reduction", depth=4096).passed


def test_shape_and_dtype_mismatch_fail_with_reason() -> None:
    a = np.zeros((2, 3), np.float32)
    assert "shape (3, 2)" in compare_arrays(a, a.reshape(3, 2), name="x", dtype="f32", cls="exact").reason
    bad = compare_arrays(a, a.astype(np.float64), name="x", dtype="f32", cls="exact")
    assert not bad.passed and "port is float64" in bad.reason
    assert compare_arrays(a[:0], a[:0], name="x", dtype="f32", cls="exact").passed


def test_recorded_driver_output_broken_port_is_caught() -> None:
    """Arrays the C++ driver wrote on an H200: its .npy header reads in numpy, one bad element is found."""
    c = compare_files(RECORDED / "saxpy_y_cuda_head.npy", RECORDED / "saxpy_y_broken_head.npy", name="y",
                      dtype="f32", cls="elementwise")
    assert not c.passed and c.mismatches == 1 and c.worst_index == (777,)
    assert c.max_abs_error == pytest.approx(1e-3, rel=1e-3)
    reduce = load_npy(RECORDED / "reduce_out_cuda.npy")
    assert reduce.dtype == np.float32 and reduce.shape == (256,)
    cast = load_npy(RECORDED / "scalecast_half_out_cuda.npy")
    # const(0.1) as f16 is 0.0999755859375; the kernel doubles it.
    assert cast.shape == (3, 5) and np.all(cast == np.float32(2 * np.float16(0.1)))


def test_recorded_wave64_port_differs_only_by_summation_order() -> None:
    """fixtures/reduce on CUDA vs its golden port under hip_on_cuda (wave64 trees): not bit-equal,
    outside the elementwise tolerance, inside the reduction tolerance for 4096 terms per sum."""
    ref, port = RECORDED / "reduce_out_cuda.npy", RECORDED / "reduce_out_hip_on_cuda.npy"
    kw = {"name": "out", "dtype": "f32"}
    assert not compare_files(ref, port, cls="exact", **kw).passed
    assert not compare_files(ref, port, cls="elementwise", **kw).passed
    c = compare_files(ref, port, cls="reduction", depth=4096, **kw)
    assert c.passed and 0 < c.max_abs_error < 1e-5
