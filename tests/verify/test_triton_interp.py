"""porter.verify.triton_interp: Triton kernels under TRITON_INTERPRET=1 on the CPU, original against port.

The bf16 tests are the proof of the tl.dot fix: Triton 3.9's interpreter multiplies bf16 bit
patterns; with porter's fix the same kernel matches torch's float32 matmul of the same bf16 inputs
within the matmul tolerance.

The kernels live here as source text, written to a temporary folder: a folder under fixtures/
would be taken for a project to port (tests/engine/test_port.py, the Makefile's demo).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from porter.verify.compare import compare_arrays
from porter.verify.spec import ArrayArg, ScalarArg
from porter.verify.triton_interp import InterpCheck, TritonLaunch, bf16_bits, bf16_values, check_port, run_interpreted, seeded_array

HEADER = "import triton\nimport triton.language as tl\n\n\n"
# Kernels both Triton test modules use live in fixtures/verify/triton/; the rest are this file's own.
SHARED = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "triton"
KERNEL_SOURCES = {
    "vector_add.py": (SHARED / "vector_add.py").read_text(),
    # C = A @ B, bf16 inputs, fp32 accumulator and output: tl.dot -> MFMA on gfx950, wgmma on sm_90.
    "matmul_bf16.py": (SHARED / "matmul_bf16.py").read_text(),
    "syntax_error.py": HEADER + """@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
""",
}
M, N, K = 64, 48, 96


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("triton-kernels")
    for name, text in KERNEL_SOURCES.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture(autouse=True)
def needs_triton_and_torch() -> None:
    """Skip without them on a laptop; in CI (which installs the extras) a skip is a failure."""
    missing = [m for m in ("triton", "torch") if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"missing in CI: {', '.join(missing)}", pytrace=False)
        pytest.skip(f"not installed: {', '.join(missing)} (porter-gpu[triton,hipify])")


def vector_add_check() -> InterpCheck:
    return InterpCheck(
        args=(ArrayArg(name="x_ptr", dtype="f32", shape=("n",), init="normal(0, 1)"),
              ArrayArg(name="y_ptr", dtype="f32", shape=("n",), init="uniform(-1, 1)"),
              ArrayArg(name="out_ptr", dtype="f32", shape=("n",), intent="out"),
              ScalarArg(name="n", dtype="i32", value="n")),
        sizes={"n": 1000}, tolerance="exact", seed=7)


def matmul_check(*, fix: bool) -> InterpCheck:
    scalars = {"M": "M", "N": "N", "K": "K", "stride_am": "K", "stride_ak": 1, "stride_bk": "N", "stride_bn": 1,
               "stride_cm": "N", "stride_cn": 1}
    return InterpCheck(
        args=(ArrayArg(name="a_ptr", dtype="bf16", shape=("M", "K"), init="normal(0, 1)"),
              ArrayArg(name="b_ptr", dtype="bf16", shape=("K", "N"), init="normal(0, 1)"),
              ArrayArg(name="c_ptr", dtype="f32", shape=("M", "N"), intent="out"),
              *(ScalarArg(name=n, dtype="i32", value=v) for n, v in scalars.items())),
        sizes={"M": M, "N": N, "K": K}, tolerance="matmul", depth="K", bf16_dot_fix=fix, seed=3)


def matmul_launch(kernels: Path, bm: int, bn: int, bk: int) -> TritonLaunch:
    return TritonLaunch(kernels / "matmul_bf16.py", "matmul_kernel", ("ceil_div(M, BLOCK_M)", "ceil_div(N, BLOCK_N)"),
                        {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk})


def add_launch(kernels: Path, block: int) -> TritonLaunch:
    return TritonLaunch(kernels / "vector_add.py", "add_kernel", ("ceil_div(n, BLOCK)",), {"BLOCK": block})


def test_vector_add_port_matches_exactly(kernels: Path, tmp_path: Path) -> None:
    result = check_port(add_launch(kernels, 256), add_launch(kernels, 128), vector_add_check(), tmp_path)
    assert result.run.build.ok, result.run.build.stderr
    (c,) = result.comparisons
    assert result.passed and c.passed and c.tolerance == "exact" and c.elements == 1000
    x, y = (np.load(result.run.inputs[n]) for n in ("x_ptr", "y_ptr"))
    assert np.array_equal(np.load(result.run.outputs["port"]["out_ptr"]), x + y)  # and it is right


def test_wrong_port_is_a_mismatch(kernels: Path, tmp_path: Path) -> None:
    # BLOCK 64 with a grid sized for 128: the port leaves the second half of each 128 unwritten.
    short = TritonLaunch(kernels / "vector_add.py", "add_kernel", ("ceil_div(n, 128)",), {"BLOCK": 64})
    result = check_port(add_launch(kernels, 128), short, vector_add_check(), tmp_path)
    assert result.run.build.ok and not result.passed
    assert result.comparisons[0].mismatches > 0 and "out_ptr" in result.reason


def torch_reference(run) -> np.ndarray:
    """float32 matmul, in torch, of the exact bf16 inputs the interpreter was given."""
    import torch

    a, b = (torch.from_numpy(bf16_values(np.load(run.inputs[n]))) for n in ("a_ptr", "b_ptr"))
    return (a @ b).numpy()


def test_plain_interpreter_gets_bf16_dot_wrong(kernels: Path, tmp_path: Path) -> None:
    run = run_interpreted({"port": matmul_launch(kernels, 32, 16, 32)}, matmul_check(fix=False), tmp_path)
    assert run.build.ok, run.build.stderr
    c = compare_arrays(torch_reference(run), np.load(run.outputs["port"]["c_ptr"]), name="c", dtype="f32",
                       cls="matmul", depth=K)
    assert not c.passed and c.mismatches == M * N
    assert c.max_abs_error > 1e6  # products of bit patterns ~2^14 each, not of numbers ~1


def test_bf16_dot_fix_matches_torch(kernels: Path, tmp_path: Path) -> None:
    run = run_interpreted({"port": matmul_launch(kernels, 32, 16, 32)}, matmul_check(fix=True), tmp_path)
    assert run.build.ok, run.build.stderr
    c = compare_arrays(torch_reference(run), np.load(run.outputs["port"]["c_ptr"]), name="c", dtype="f32",
                       cls="matmul", depth=K)
    assert c.passed, c.reason
    assert c.rtol == pytest.approx(K * 2.0**-23)  # the matmul class: K * eps of the f32 accumulator


def test_retiled_bf16_port_passes_with_fix(kernels: Path, tmp_path: Path) -> None:
    original, port = matmul_launch(kernels, 32, 32, 32), matmul_launch(kernels, 16, 16, 16)
    result = check_port(original, port, matmul_check(fix=True), tmp_path)
    assert result.run.build.ok, result.run.build.stderr
    assert result.passed, result.reason
    assert set(result.run.outputs) == {"original", "port"}


def test_plain_interpreter_passes_a_bf16_port_falsely(kernels: Path, tmp_path: Path) -> None:
    # Original and port both multiply bit patterns, and agree with each other: comparing two
    # interpreted runs cannot catch the bug, which is why the fix is on by default and proven
    # against torch above.
    original, port = matmul_launch(kernels, 32, 32, 32), matmul_launch(kernels, 16, 16, 16)
    result = check_port(original, port, matmul_check(fix=False), tmp_path)
    assert result.passed
    assert result.comparisons[0].max_abs_error > 1.0  # the outputs are ~1e10, not ~10


def test_kernel_failure_is_data(kernels: Path, tmp_path: Path) -> None:
    bad = TritonLaunch(kernels / "syntax_error.py", "add_kernel", ("ceil_div(n, BLOCK)",), {"BLOCK": 128})
    result = check_port(add_launch(kernels, 128), bad, vector_add_check(), tmp_path)
    assert not result.run.build.ok and not result.passed
    assert "SyntaxError" in result.run.build.stderr and result.comparisons == ()


def test_bf16_rounding_and_seeded_inputs() -> None:
    import torch

    x = np.array([1.0, 1.00390625, 1.01171875, -2.5, np.inf, -np.inf, 3.0e38, 3.4e38], dtype=np.float32)
    x = np.concatenate([x, np.random.default_rng(1).normal(0, 100, 4096).astype(np.float32)])
    # torch's float32 -> bfloat16 conversion (round to nearest even) is the oracle.
    want = torch.from_numpy(x).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(bf16_bits(x), want)
    assert list(bf16_values(bf16_bits(x[:4]))) == [1.0, 1.0, 1.015625, -2.5]  # ties go to even
    assert bf16_bits(np.array([np.nan], dtype=np.float32))[0] == 0x7FC0
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    a = seeded_array(rng1, "bf16", (4, 4), "normal", (0.0, 1.0))
    assert a.dtype == np.uint16 and np.array_equal(a, seeded_array(rng2, "bf16", (4, 4), "normal", (0.0, 1.0)))


def test_check_is_validated(kernels: Path) -> None:
    with pytest.raises(ValueError, match="not an out/inout"):
        InterpCheck(args=vector_add_check().args, sizes={"n": 8}, outputs=("x_ptr",))
    with pytest.raises(ValueError, match="no output"):
        InterpCheck(args=(ArrayArg(name="x", dtype="f32", shape=(4,)),))
    with pytest.raises(ValueError, match="unknown size"):
        InterpCheck(args=vector_add_check().args, sizes={"m": 8})
    with pytest.raises(ValueError, match="grid"):
        TritonLaunch(kernels / "vector_add.py", "add_kernel", (1, 1, 1, 1))
    with pytest.raises(ValueError, match=">= 1"):
        add_launch(kernels, 128).grid_dims({"n": 0})
