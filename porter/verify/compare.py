"""Compare a port's output array with the original's: dtype-aware, by tolerance class.

The verifier calls `compare_files` on the two .npy files a kernel driver wrote (the original's
is the reference). Integers, and floats under the `exact` class, must match bit for bit
(any NaN matches any NaN: NVIDIA and AMD produce different canonical NaN payloads). Other
floats pass when every element satisfies |got - ref| <= atol + rtol * |ref| with (rtol, atol)
from `tolerance()`, unless the spec overrides them. Non-finite values must match in kind and
place: a NaN where the reference is finite fails, and +Inf against -Inf fails.

The report gives the largest absolute and relative error over elements finite on both sides,
and the worst element (the one furthest outside its tolerance, or the first non-finite or
bit mismatch) as an unravelled index.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from porter.state import Frozen
from porter.verify.spec import DType, ToleranceClass

# Machine epsilon (spacing of 1.0): IEEE 754 binary64/32/16 and bfloat16 (8 significand bits).
EPS = {"f64": 2.0**-52, "f32": 2.0**-23, "f16": 2.0**-10, "bf16": 2.0**-7}

# Elementwise: one operation chain per element, so the builds differ by a few roundings:
# FMA contraction (nvcc and clang both contract a*b+c by default, but not always the same
# pairs), and the math libraries (libdevice vs ROCm's OCML; both 1-4 ulp for transcendentals,
# CUDA Programming Guide "Mathematical Functions", ROCm OCML docs). f32 allows ~80 ulp near 1.0
# so short chains of such functions pass; half precision allows 2 ulp, one rounding per side of
# an f32 intermediate (torch.testing.assert_close uses 1e-3 and 1.6e-2 for f16/bf16).
# atol guards elements that cancel to ~0, where any relative bound is meaningless.
ELEMENTWISE = {  # dtype: (rtol, atol)
    "f64": (1e-12, 1e-14),
    "f32": (1e-5, 1e-6),
    "f16": (2e-3, 1e-5),
    "bf16": (1.6e-2, 1e-5),
}

# Reductions and GEMMs on half-precision data accumulate in f32 on both vendors' matrix and
# vector paths (Tensor Cores, MFMA; CUB/hipCUB sums of __half widen), so the accumulation error
# scales with the accumulator's epsilon, not the output's.
ACCUMULATOR = {"f64": "f64", "f32": "f32", "f16": "f32", "bf16": "f32"}

# Reduction of n terms in two different orders (a warp-32 tree vs a wave-64 tree): the
# probabilistic bound of Higham & Mary (SIAM J. Sci. Comput. 41(5), 2019, Thm 3.1) gives
# |error| <= lambda * sqrt(n) * u * sum|x_i| with probability >= 1 - 2 exp(-lambda^2 / 2), u = eps/2.
# lambda = 8 makes a false failure per element less likely than 1e-13: 4 * sqrt(n) * eps.
REDUCTION_FACTOR = 4.0

# A dot product of length K has the deterministic bound |error| <= gamma_K |A||B|, gamma_K ~ K*u
# (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 3.5); different
# blockings of K on the two GPUs each stay inside it, so their difference is within K * eps.
MATMUL_FACTOR = 1.0

INTEGER_DTYPES = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u8": np.uint8}
# How each dtype appears in the driver's .npy files (bf16 as its raw bits).
NPY_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16, **INTEGER_DTYPES}
_BITS = {"f32": np.uint32, "f64": np.uint64, "f16": np.uint16, "bf16": np.uint16}


def tolerance(dtype: DType, cls: ToleranceClass, depth: int = 1) -> tuple[float, float]:
    """(rtol, atol) for floats of `dtype` under `cls`; `depth` is n of a reduction or K of a GEMM.

    (0, 0) for integers and the exact class: those compare bit patterns.
    """
    if dtype in INTEGER_DTYPES or cls == "exact":
        return 0.0, 0.0
    rtol, atol = ELEMENTWISE[dtype]
    depth = max(int(depth), 1)
    eps_acc = EPS[ACCUMULATOR[dtype]]
    if cls == "reduction":
        scale = REDUCTION_FACTOR * math.sqrt(depth)
    elif cls == "matmul":
        scale = MATMUL_FACTOR * depth
    else:
        return rtol, atol
    return max(rtol, scale * eps_acc), atol * max(math.sqrt(depth), 1.0)


class Comparison(Frozen):
    """One output array of one kernel, port against original."""

    name: str
    dtype: str
    tolerance: str
    rtol: float
    atol: float
    passed: bool
    elements: int = 0
    mismatches: int = 0  # elements outside tolerance (or not bit-equal), non-finite ones included
    nonfinite_mismatches: int = 0  # NaN/Inf in a different kind or place than the reference
    max_abs_error: float = 0.0  # over elements finite on both sides
    max_rel_error: float = 0.0  # same, where the reference is not zero
    worst_index: tuple[int, ...] | None = None
    worst_reference: str = ""  # repr of the values there (str: NaN and Inf stay JSON-safe)
    worst_port: str = ""
    reason: str = ""


def load_npy(path: Path) -> np.ndarray:
    """A .npy file as written by the driver; never unpickles objects."""
    return np.load(path, allow_pickle=False)


def as_values(a: np.ndarray, dtype: DType) -> np.ndarray:
    """The array as numbers: bf16 bits widen exactly to float32 (bf16 is the top half of an f32)."""
    if dtype == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def compare_files(ref: Path, got: Path, *, name: str, dtype: DType, cls: ToleranceClass, depth: int = 1,
                  rtol: float | None = None, atol: float | None = None) -> Comparison:
    return compare_arrays(load_npy(ref), load_npy(got), name=name, dtype=dtype, cls=cls, depth=depth,
                          rtol=rtol, atol=atol)


def compare_arrays(ref: np.ndarray, got: np.ndarray, *, name: str, dtype: DType, cls: ToleranceClass,
                   depth: int = 1, rtol: float | None = None, atol: float | None = None) -> Comparison:
    """Compare `got` (the port) with `ref` (the original), both stored as `dtype` is in .npy."""
    table_rtol, table_atol = tolerance(dtype, cls, depth)
    rtol = table_rtol if rtol is None else rtol
    atol = table_atol if atol is None else atol
    head = {"name": name, "dtype": dtype, "tolerance": cls, "rtol": rtol, "atol": atol}
    want = np.dtype(NPY_DTYPES[dtype]).newbyteorder("=")
    for side, arr in (("reference", ref), ("port", got)):
        if arr.dtype.newbyteorder("=") != want:
            return Comparison(**head, passed=False, reason=f"{side} is {arr.dtype}, expected {want} for {dtype}")
    if ref.shape != got.shape:
        return Comparison(**head, passed=False, reason=f"shape {got.shape} differs from the reference's {ref.shape}")
    elements = int(ref.size)
    if elements == 0:
        return Comparison(**head, passed=True)
    if dtype in INTEGER_DTYPES:
        return _bitwise(ref, got, head, elements, floats=False, dtype=dtype)
    if cls == "exact":
        return _bitwise(ref, got, head, elements, floats=True, dtype=dtype)
    return _tolerant(as_values(ref, dtype).astype(np.float64), as_values(got, dtype).astype(np.float64),
                     head, elements, rtol, atol, dtype)


def _bitwise(ref: np.ndarray, got: np.ndarray, head: dict, elements: int, *, floats: bool, dtype: DType) -> Comparison:
    if floats:
        bits = _BITS[dtype]
        rv, gv = as_values(ref, dtype), as_values(got, dtype)
        both_nan = np.isnan(rv) & np.isnan(gv)
        differ = (ref.view(bits) != got.view(bits)) & ~both_nan
        kind = _kinds(rv) != _kinds(gv)
        finite = np.isfinite(rv) & np.isfinite(gv)
        r64 = np.where(finite, rv.astype(np.float64), 0.0)
        g64 = np.where(finite, gv.astype(np.float64), 0.0)
    else:
        differ = ref != got
        kind = np.zeros(ref.shape, dtype=bool)
        # Integers compare exactly; the error columns still say how far off the values are.
        r64, g64 = ref.astype(np.float64), got.astype(np.float64)
    abs_err, rel_err = _errors(r64, g64)
    n_bad = int(differ.sum())
    worst = np.unravel_index(int(np.argmax(differ)), ref.shape) if n_bad else None
    return Comparison(**head, passed=n_bad == 0, elements=elements, mismatches=n_bad,
                      nonfinite_mismatches=int(kind.sum()), max_abs_error=abs_err, max_rel_error=rel_err,
                      **_worst(worst, as_values(ref, dtype), as_values(got, dtype)),
                      reason="" if n_bad == 0 else f"{n_bad} of {elements} elements differ in their bits")


def _tolerant(ref: np.ndarray, got: np.ndarray, head: dict, elements: int, rtol: float, atol: float,
              dtype: DType) -> Comparison:
    kind = _kinds(ref) != _kinds(got)
    finite = np.isfinite(ref) & np.isfinite(got)
    rf, gf = np.where(finite, ref, 0.0), np.where(finite, got, 0.0)  # kinds are compared above
    diff = np.abs(gf - rf)
    allowed = atol + rtol * np.abs(rf)
    outside = finite & (diff > allowed)
    bad = kind | outside
    n_bad, n_kind = int(bad.sum()), int(kind.sum())
    abs_err, rel_err = _errors(rf, gf)
    if n_kind:  # a NaN or Inf out of place is the worst thing there is: report the first
        worst = np.unravel_index(int(np.argmax(kind)), ref.shape)
    elif n_bad:
        # The element furthest outside its own tolerance; allowed > 0 unless rtol = atol = 0.
        excess = np.where(outside, diff / np.where(allowed > 0, allowed, np.finfo(np.float64).tiny), 0.0)
        worst = np.unravel_index(int(np.argmax(excess)), ref.shape)
    else:
        worst = np.unravel_index(int(np.argmax(diff)), ref.shape) if abs_err > 0 else None
    reasons = []
    if n_kind:
        reasons.append(f"{n_kind} element(s) NaN/Inf where the reference is not the same (first at {worst})")
    if int(outside.sum()):
        reasons.append(f"{int(outside.sum())} of {elements} elements outside rtol={rtol:.3g} atol={atol:.3g}")
    return Comparison(**head, passed=n_bad == 0, elements=elements, mismatches=n_bad, nonfinite_mismatches=n_kind,
                      max_abs_error=abs_err, max_rel_error=rel_err, **_worst(worst, ref, got),
                      reason="; ".join(reasons))


def _kinds(a: np.ndarray) -> np.ndarray:
    """0 finite, 1 NaN, 2 +Inf, 3 -Inf."""
    return np.select([np.isnan(a), np.isposinf(a), np.isneginf(a)], [1, 2, 3], 0).astype(np.int8)


def _errors(ref: np.ndarray, got: np.ndarray) -> tuple[float, float]:
    """Largest absolute and relative error; callers pass finite values (non-finite zeroed)."""
    diff = np.abs(got - ref)
    nonzero = ref != 0
    rel = np.where(nonzero, diff / np.where(nonzero, np.abs(ref), 1.0), 0.0)
    return float(diff.max()), float(rel.max())


def _worst(index: tuple | None, ref: np.ndarray, got: np.ndarray) -> dict:
    if index is None:
        return {}
    index = tuple(int(i) for i in index)
    return {"worst_index": index, "worst_reference": repr(ref[index].item()), "worst_port": repr(got[index].item())}
