"""porter.verify.triton_units: `[[verify.triton]]` specs, and verifying a Triton unit without a GPU.

verify_triton_unit runs, per spec entry, the gfx950 AOT compile of the port, the sm_90 AOT
compile of the original (the control) and both under Triton's interpreter; each is a
subprocess of about 2 s. The small original/port pairs live here as source text written to a
temporary folder (a folder under fixtures/ would be taken for a project to port); the fixture
projects fixtures/triton_* are checked against their golden ports.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from porter.inventory import inventory
from porter.state import FileKind
from porter.verify.spec import ArrayArg, ScalarArg, SpecError, TritonSpec, load_spec, parse_spec
from porter.verify.triton_units import verify_triton_unit

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
GOLDEN = FIXTURES / "golden"
TRITON_PROJECTS = sorted(p.name for p in FIXTURES.glob("triton_*") if (p / "porter.toml").is_file())

needs_triton = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None,
    reason="needs the triton and torch Python packages (porter-gpu[triton])")

HEADER = "import triton\nimport triton.language as tl\n\n\n"
ADD = HEADER + """@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
"""
# Off by one element: the last lane of every block reads its neighbour's y.
ADD_WRONG = ADD.replace("tl.load(y_ptr + offs, mask=mask)",
                        "tl.load(y_ptr + offs + (offs % BLOCK == BLOCK - 1), mask=mask)")

SPEC_TOML = """
[[verify.triton]]
module = "kernels/add.py"
kernel = "add_kernel"
sizes = { n = 1000 }
constexprs = { BLOCK = 256 }
grid = "ceil_div(n, BLOCK)"
divisible_by_16 = ["x_ptr", "y_ptr", "out_ptr"]
tolerance = "exact"
num_warps = 4
port = { constexprs = { BLOCK = 512 }, num_warps = 2 }

[[verify.triton.arg]]
name = "x_ptr"
dtype = "f32"
shape = ["n"]
init = "uniform(-1, 1)"

[[verify.triton.arg]]
name = "y_ptr"
dtype = "f32"
shape = ["n"]
init = "normal(0, 1)"

[[verify.triton.arg]]
name = "out_ptr"
dtype = "f32"
shape = ["n"]
intent = "out"

[[verify.triton.arg]]
name = "n"
dtype = "i32"
value = "n"
"""


def _spec(tmp_path: Path, text: str = SPEC_TOML) -> Path:
    path = tmp_path / "porter.toml"
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------ spec

def test_triton_spec_parses(tmp_path: Path) -> None:
    spec = load_spec(_spec(tmp_path))
    assert spec.kernels == [] and spec.commands == []
    (t,) = spec.triton
    assert spec.triton_for("kernels/add.py") == [t] and spec.triton_for("other.py") == []
    assert (t.module, t.kernel, t.label, t.tolerance) == ("kernels/add.py", "add_kernel", "add_kernel", "exact")
    assert [type(a) for a in t.args] == [ArrayArg, ArrayArg, ArrayArg, ScalarArg]
    assert t.signature_types() == {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    assert t.output_names == ["out_ptr"]
    assert t.constexprs_of("original") == {"BLOCK": 256} and t.constexprs_of("port") == {"BLOCK": 512}
    assert t.grid_of("original") == (4,) and t.grid_of("port") == (2,)
    assert (t.num_warps_of("original"), t.num_warps_of("port"), t.num_stages_of("port")) == (4, 2, 2)


def test_triton_spec_explicit_signature_and_bools() -> None:
    entry = {"module": "a.py", "kernel": "k", "grid": [1, 2], "constexprs": {"USE_TMA": True, "B": 16},
             "signature": {"o": "*bf16", "s": "fp32"}, "tolerance": "matmul", "depth": 8,
             "arg": [{"name": "o", "dtype": "bf16", "shape": [4], "intent": "out"},
                     {"name": "s", "dtype": "f32", "value": 0.5}]}
    (t,) = parse_spec({"triton": [entry]}, Path("p.toml")).triton
    assert t.constexprs == {"USE_TMA": True, "B": 16} and type(t.constexprs["USE_TMA"]) is bool
    assert t.grid_of("port") == (1, 2) and t.depth_value() == 8


def test_triton_spec_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    path = _spec(tmp_path, SPEC_TOML.replace('tolerance = "exact"', 'tolerence = "exact"'))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert str(err.value) == f"{path}: verify.triton[0].tolerence: unknown key"
    path = _spec(tmp_path, SPEC_TOML.replace("port = { constexprs", "port = { num_warp = 2, constexprs"))
    with pytest.raises(SpecError, match=r"verify\.triton\[0\]\.port\.num_warp: unknown key$"):
        load_spec(path)
    path = _spec(tmp_path, SPEC_TOML.replace('value = "n"', 'value = "n"\nintial = "ones"'))
    with pytest.raises(SpecError, match=r"verify\.triton\[0\]\.arg\[3\]\.intial: unknown key$"):
        load_spec(path)


@pytest.mark.parametrize(("change", "message"), [
    (("grid = \"ceil_div(n, BLOCK)\"", "grid = \"ceil_div(n, BLOK)\""), "unknown size 'BLOK'"),
    (("divisible_by_16 = [\"x_ptr\"", "divisible_by_16 = [\"n\", \"x_ptr\""), "n, whose value 1000 is not a multiple"),
    (("divisible_by_16 = [\"x_ptr\"", "divisible_by_16 = [\"q\", \"x_ptr\""), "'q' is not in the signature"),
    (("num_warps = 4", "num_warps = 3"), "num_warps 3"),
    (("kernel = \"add_kernel\"", "kernel = \"add-kernel\""), "should match pattern"),
    (("module = \"kernels/add.py\"", "module = \"../add.py\""), "inside the project"),
    (("tolerance = \"exact\"", "tolerance = \"matmul\""), "needs depth"),
    (("constexprs = { BLOCK = 256 }", "constexprs = { BLOCK = 256, n = 3 }"), "both in the signature and a constexpr"),
    (("intent = \"out\"", "intent = \"in\""), "no output"),
])
def test_bad_triton_specs(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    assert change[0] in SPEC_TOML
    with pytest.raises(SpecError, match=message):
        load_spec(_spec(tmp_path, SPEC_TOML.replace(*change)))


def test_signature_must_agree_with_args() -> None:
    entry = {"module": "a.py", "kernel": "k", "grid": 1, "signature": {"o": "*fp16"},
             "arg": [{"name": "o", "dtype": "f32", "shape": [4], "intent": "out"}]}
    with pytest.raises(SpecError, match=r"signature o = '\*fp16' but its arg's dtype makes it '\*fp32'"):
        parse_spec({"triton": [entry]}, Path("p.toml"))


def test_same_kernel_twice_needs_names() -> None:
    entry = {"module": "a.py", "kernel": "k", "grid": 1, "arg": [{"name": "o", "dtype": "f32", "shape": [4],
                                                                  "intent": "out"}]}
    with pytest.raises(SpecError, match="triton spec given twice"):
        parse_spec({"triton": [entry, entry]}, Path("p.toml"))
    spec = parse_spec({"triton": [entry, entry | {"name": "k_wide"}]}, Path("p.toml"))
    assert [t.label for t in spec.triton] == ["k", "k_wide"]


# ------------------------------------------------------------------------------------ discovery

def triton_units(root: Path) -> list[str]:
    """The Triton modules the scan finds (the verifier's units of that kind)."""
    return sorted(f.path for f in inventory(root).files if f.kind == FileKind.triton)


def test_the_scan_finds_modules_that_import_triton(tmp_path: Path) -> None:
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "add.py").write_text(ADD)
    (tmp_path / "kernels" / "lang.py").write_text("from triton.language import core\n")
    (tmp_path / "host.py").write_text("import torch\n# import triton in a comment does not count\n")
    (tmp_path / "notes.txt").write_text("import triton\n")
    assert triton_units(tmp_path) == ["kernels/add.py", "kernels/lang.py"]
    assert triton_units(FIXTURES / "triton_matmul") == ["matmul.py"]


# ------------------------------------------------------------------------------------ verify_triton_unit

def _pair(tmp_path: Path, port_text: str) -> tuple[Path, Path, list[TritonSpec]]:
    source, port = tmp_path / "src", tmp_path / "port"
    for root, text in ((source, ADD), (port, port_text)):
        (root / "kernels").mkdir(parents=True)
        (root / "kernels" / "add.py").write_text(text)
    return source, port, load_spec(_spec(tmp_path)).triton


@needs_triton
def test_vector_add_port_passes_with_gfx950_resources(tmp_path: Path) -> None:
    source, port, entries = _pair(tmp_path, ADD)
    result = verify_triton_unit(source, port, entries, tmp_path / "work")
    assert (result.unit, result.verdict, result.failure_class) == ("kernels/add.py", "compiled", "")
    (k,) = result.kernels
    assert k.check.executor == "triton-interpreter" and k.check.status == "pass", k.check.reason
    assert k.check.max_abs_error == 0.0 and k.check.kernel == "add_kernel"
    res = k.resources
    assert res is not None and k.port_build is not None and k.port_build.ok
    assert (res.kernel, res.unit, res.arch) == ("add_kernel", "kernels/add.py", "gfx950")
    assert res.vgprs > 0 and res.sgprs > 0 and res.mfma_count == 0 and res.vgpr_spill == 0
    assert k.control is not None and k.control.arch == "sm_90" and k.control.unit == "kernels/add.py"
    assert k.control_summary.startswith("sm_90") and "registers" in k.control_summary and "no mma" in k.control_summary
    unit = result.unit_result()
    assert unit.verdict == "compiled" and unit.kernels == (res,) and unit.checks == (k.check,)


@needs_triton
def test_wrong_port_is_a_mismatch(tmp_path: Path) -> None:
    source, port, entries = _pair(tmp_path, ADD_WRONG)
    result = verify_triton_unit(source, port, entries, tmp_path / "work")
    assert (result.verdict, result.failure_class) == ("failed", "mismatch")
    (k,) = result.kernels
    assert k.check.status == "mismatch" and k.check.max_abs_error > 0 and "out_ptr" in k.check.reason
    # the port's block is 512 wide: its first wrong element is lane 511
    assert k.check.worst_index is not None and k.check.worst_index[0] % 512 == 511
    assert k.resources is not None  # it still compiles for gfx950: the evidence is kept
    assert result.unit_result().checks[0].status == "mismatch"


@needs_triton
def test_port_that_fails_is_data(tmp_path: Path) -> None:
    broken = ADD.replace("tl.store(out_ptr + offs,", "tl.store(out_ptr + offs + undefined_name,")
    source, port, entries = _pair(tmp_path, broken)
    result = verify_triton_unit(source, port, entries, tmp_path / "work")
    (k,) = result.kernels
    assert result.verdict == "failed" and result.failure_class == "triton-compile"
    assert k.port_build is not None and not k.port_build.ok and k.resources is None
    assert "undefined_name" in k.port_build.stderr
    assert k.check.status == "port-run-failed" and "undefined_name" in k.check.reason
    assert k.control is not None  # the original's control compile is unaffected


def test_no_entries_is_not_checked(tmp_path: Path) -> None:
    result = verify_triton_unit(tmp_path, tmp_path, [], tmp_path / "work", unit="k.py")
    assert (result.unit, result.verdict) == ("k.py", "not-checked") and "not exercised" in result.reason


# ------------------------------------------------------------------------------------ fixture projects

def _uses_dot(module: Path, kernel: str) -> bool:
    text = module.read_text()
    fn = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == kernel)
    return "tl.dot(" in (ast.get_source_segment(text, fn) or "")


def test_there_are_triton_fixture_specs() -> None:
    assert TRITON_PROJECTS, "no fixtures/triton_* project has a porter.toml"
    for project in TRITON_PROJECTS:
        spec = load_spec(FIXTURES / project)
        assert spec.triton, f"{project}: porter.toml has no [[verify.triton]]"
        for t in spec.triton:
            assert t.module in triton_units(FIXTURES / project), f"{project}: {t.module} is not a Triton unit"
            assert t.module in triton_units(GOLDEN / project), f"{project}: the golden port has no {t.module}"


@needs_triton
@pytest.mark.slow
@pytest.mark.parametrize("project", TRITON_PROJECTS)
def test_fixture_golden_port_verifies(project: str, tmp_path: Path) -> None:
    spec = load_spec(FIXTURES / project)
    for module in sorted({t.module for t in spec.triton}):
        entries = spec.triton_for(module)
        result = verify_triton_unit(FIXTURES / project, GOLDEN / project, entries, tmp_path / module)
        assert result.verdict == "compiled", f"{project}/{module}: {result.reason}"
        for e, k in zip(entries, result.kernels, strict=True):
            where = f"{project}/{module}:{k.label}"
            want = "pass" if e.interpret else "not-checked"
            assert k.check.status == want, f"{where}: {k.check.status}: {k.check.reason}"
            assert k.resources is not None and k.resources.vgprs > 0, where
            assert k.control is not None, f"{where}: sm_90 control: {k.control_summary}"
            if _uses_dot(GOLDEN / project / module, e.kernel):
                assert k.resources.mfma_count >= 1, f"{where}: tl.dot but no v_mfma on gfx950"
                assert k.control.mma_count >= 1, f"{where}: tl.dot but no mma in the sm_90 control"
