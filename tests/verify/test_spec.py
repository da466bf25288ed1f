"""porter.verify.spec: reading porter.toml / pyproject.toml verify specs."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from porter.verify.spec import ArrayArg, Initialiser, KernelSpec, ScalarArg, SpecError, evaluate, load_spec, parse_spec

FIXTURES = Path(__file__).parents[2] / "fixtures" / "verify"


def test_good_spec_reads_both_kinds() -> None:
    spec = load_spec(FIXTURES / "saxpy")
    assert spec.source.endswith("porter.toml")
    (cmd,) = spec.commands
    assert (cmd.name, cmd.build, cmd.run, cmd.expect_rc, cmd.stdout_regex) == (
        "selftest", "nvcc -O3 -o saxpy saxpy.cu", "./saxpy", True, "^saxpy fixture")
    saxpy, block_sum, cast = spec.kernels
    assert saxpy.grid_dims() == (391, 1, 1) and saxpy.block_dims() == (256, 1, 1)
    assert [type(a) for a in saxpy.args] == [ScalarArg, ScalarArg, ArrayArg, ArrayArg]
    assert saxpy.output_names == ["y"]
    y = saxpy.arg("y")
    assert isinstance(y, ArrayArg) and y.init == Initialiser(kind="normal", params=(0.0, 2.0)) and y.intent == "inout"
    assert (saxpy.seed, saxpy.warmup, saxpy.runs) == (7, 2, 5)
    assert block_sum.tolerance == "reduction" and block_sum.depth_value() == 256
    assert block_sum.shape_of(block_sum.arg("in")) == (16384,)
    assert cast.name == "scaleCast<__half>" and spec.kernel("scaleCast") is cast
    assert cast.shape_of(cast.arg("in")) == (3, 5)


def test_fixture_project_specs() -> None:
    reduce = load_spec(FIXTURES / "specs" / "reduce.toml").kernels[0]
    assert reduce.depth_value() == 4096 and reduce.grid_dims() == (256, 1, 1)
    mm = load_spec(FIXTURES / "specs" / "matmul_tiled.toml").kernels[0]
    assert mm.grid_dims() == (12, 16, 1) and mm.block_dims() == (32, 32, 1) and mm.depth_value() == 1024


def test_pyproject_tool_porter_verify() -> None:
    spec = load_spec(FIXTURES / "specs" / "pyproject.toml")
    assert [c.name for c in spec.commands] == ["selftest"] and spec.kernels == []


def test_project_without_spec_is_empty(tmp_path: Path) -> None:
    assert load_spec(tmp_path).kernels == []


def test_unknown_key_names_file_and_key() -> None:
    path = FIXTURES / "specs" / "unknown_key.toml"
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert str(err.value) == f"{path}: verify.kernel[0].tolerence: unknown key"


def test_unknown_key_in_an_argument() -> None:
    table = {"kernel": [{"name": "k", "unit": "k.cu", "grid": 1, "block": 1,
                         "arg": [{"name": "y", "dtype": "f32", "shape": [4], "intent": "out", "intial": "ones"}]}]}
    with pytest.raises(SpecError, match=r"^x.toml: verify.kernel\[0\].arg\[0\].intial: unknown key$"):
        parse_spec(table, Path("x.toml"))


def test_toml_syntax_error_names_file_and_line() -> None:
    path = FIXTURES / "specs" / "bad_syntax.toml"
    with pytest.raises(SpecError, match=rf"^{path}:4:8: TOML syntax error: Invalid value$"):
        load_spec(path)


def _kernel(**over) -> dict:
    base = {"name": "k", "unit": "k.cu", "grid": "ceil_div(n, 64)", "block": 64, "sizes": {"n": 1000},
            "arg": [{"name": "y", "dtype": "f32", "shape": ["n"], "intent": "out"}]}
    return base | over


@pytest.mark.parametrize(("over", "message"), [
    ({"tolerance": "matmul"}, "needs depth"),
    ({"outputs": ["x"]}, "output 'x' is not an out/inout array"),
    ({"grid": "ceil_div(m, 64)"}, "unknown size 'm'"),
    ({"grid": "__import__('os')"}, "only numbers, sizes"),
    ({"block": 0}, "every extent must be >= 1"),
    ({"name": "k; system(x)"}, "expected a kernel name"),
    ({"unit": "../escape.cu"}, "inside the project"),
    ({"arg": [{"name": "y", "dtype": "i32", "shape": [4], "intent": "out", "init": "normal(0, 1)"}]},
     "normal() initialises floating-point"),
    ({"arg": [{"name": "y", "dtype": "f32", "shape": [4], "intent": "out", "init": "uniform(1, 0)"}]}, "lo < hi"),
    ({"arg": [{"name": "y", "dtype": "f32", "shape": [4], "intent": "in"}]}, "no output"),
    ({"arg": [{"name": "y", "dtype": "f99", "shape": [4], "intent": "out"}]}, "verify.kernel[0].arg[0].dtype"),
    ({"arg": [{"name": "n", "dtype": "f16", "value": 1}, {"name": "y", "dtype": "f32", "shape": [4], "intent": "out"}]},
     "verify.kernel[0].arg[0].dtype"),
])
def test_bad_kernel_specs(over: dict, message: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_spec({"kernel": [_kernel(**over)]}, Path("p.toml"))
    assert message in str(err.value) and str(err.value).startswith("p.toml: verify.kernel[0]")


def test_command_needs_a_criterion() -> None:
    with pytest.raises(SpecError, match="no pass criterion"):
        parse_spec({"command": [{"name": "t", "run": "./t", "expect_rc": False}]}, Path("p.toml"))


@pytest.mark.parametrize(("text", "kind", "params"), [
    ("uniform(-1, 1)", "uniform", (-1.0, 1.0)), ("normal(0,0.5)", "normal", (0.0, 0.5)), ("arange", "arange", ()),
    ("zeros", "zeros", ()), ("ones", "ones", ()), ("const(3.5)", "const", (3.5,)), (" const( -2 ) ", "const", (-2.0,)),
])
def test_initialisers(text: str, kind: str, params: tuple) -> None:
    assert Initialiser.parse(text) == Initialiser(kind=kind, params=params)


@pytest.mark.parametrize("text", ["uniform(1)", "const", "random", "const(nan)", "uniform(a, b)"])
def test_bad_initialisers(text: str) -> None:
    with pytest.raises(ValueError):
        Initialiser.parse(text)


def test_expressions() -> None:
    sizes = {"M": 100, "T": 32}
    assert evaluate("ceil_div(M, T) * T", sizes) == 128
    assert evaluate("min(M, T) + max(2, 3) - -1", sizes) == 36
    assert evaluate("M // 3 % 7 + 2 ** 3", sizes) == 33 % 7 + 8
    assert evaluate(7, sizes) == 7


def test_kernel_spec_is_frozen() -> None:
    k = KernelSpec.model_validate(_kernel())
    with pytest.raises(ValidationError):
        k.seed = 3  # type: ignore[misc]
