"""The verifier's perfmodel estimate for Triton GEMMs (agents/verifier/estimate.py) and how the report shows it.

Expected times are the model's own `predict` on the config the estimate should pick; which
config that is, which shape, and what does not fit are worked out by hand in each test.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from porter import hardware
from porter.agents.verifier import estimate as est
from porter.perfmodel.gemm import Gemm, GemmConfig, predict
from porter.report import build_report, render_console, render_json, render_markdown
from porter.run import port
from porter.state import PortOptions, PortState, UnitResult
from porter.verify.spec import TritonSpec, load_spec, parse_spec

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "fixtures" / "triton_matmul"
GOLDEN = ROOT / "fixtures" / "golden" / "triton_matmul"
GFX950 = hardware.get("gfx950")

GEMM = '''import triton
import triton.language as tl


{decorator}@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(a_ptr), tl.load(b_ptr), acc)
    tl.store(c_ptr, acc)
'''


def _autotuned(*configs: str) -> str:
    return GEMM.format(decorator=f"@triton.autotune(configs=[{', '.join(configs)}], key=['M', 'N', 'K'])\n")


def _entry(size: int = 4096, dtype: str = "f16", **extra) -> TritonSpec:
    entry = {"module": "mm.py", "kernel": "mm", "grid": 1, "sizes": {"M": size, "N": size, "K": size},
             "tolerance": "matmul", "depth": "K",
             "arg": [{"name": "a_ptr", "dtype": dtype, "shape": ["M", "K"]},
                     {"name": "b_ptr", "dtype": dtype, "shape": ["K", "N"]},
                     {"name": "c_ptr", "dtype": dtype, "shape": ["M", "N"], "intent": "out"},
                     {"name": "M", "dtype": "i32", "value": "M"}, {"name": "N", "dtype": "i32", "value": "N"},
                     {"name": "K", "dtype": "i32", "value": "K"}], **extra}
    (t,) = parse_spec({"triton": [entry]}, Path("porter.toml")).triton
    return t


def _us(cfg: GemmConfig, shape=(4096, 4096, 4096), dtype: str = "fp16") -> float:
    return round(predict(Gemm(*shape, dtype), cfg, GFX950).time_s * 1e6, 3)


def test_problem_from_the_spec_arguments() -> None:
    (entry,) = load_spec(MATMUL).triton
    # c_ptr is [M, N] = [100, 77]; depth is K = 80; a_ptr is f16
    assert est.problem_of(entry) == ((100, 77, 80), "fp16", "the spec: c_ptr [M, N], K from depth")
    no_depth = _entry(size=512, depth=None, tolerance="elementwise")
    assert est.problem_of(no_depth) == ((512, 512, 512), "fp16", "the spec: c_ptr [M, N], K from a_ptr [M, K]")


def test_problem_defaults_when_the_spec_has_no_2d_output() -> None:
    entry = _entry().model_copy(update={"args": [a.model_copy(update={"shape": ("M",)}) if a.name == "c_ptr" else a
                                                 for a in _entry().args]})
    shape, dtype, why = est.problem_of(entry)
    assert (shape, dtype) == ((4096, 4096, 4096), "bf16")
    assert why == "default 4096x4096x4096 bf16: the spec has no 2-D output [M, N]"


def test_config_lists_read_from_both_sides_of_the_matmul_fixture() -> None:
    import libcst as cst

    (entry,) = load_spec(MATMUL).triton
    original = est.launch_configs(cst.parse_module((MATMUL / "matmul.py").read_text()), entry, "original")
    ported = est.launch_configs(cst.parse_module((GOLDEN / "matmul.py").read_text()), entry, "port")
    # The H100 list as written: num_warps 8 (4 for the small tile), num_stages 3-5, no AMD knobs.
    assert [c.label() for c in original] == ["128x256x64 g8 w8 s3", "256x128x64 g8 w8 s3", "128x128x64 g8 w8 s4",
                                             "128x256x64 g8 w8 s5", "64x128x32 g8 w4 s4"]
    # TRI020's list: the duplicate dropped, the AMD knobs read through **_porter_amd_knobs(...).
    assert len(ported) == 4 and all(c.matrix_instr_nonkdim == 16 and c.kpack == 1 for c in ported)
    assert (ported[3].block_m, ported[3].num_warps, ported[3].num_stages) == (64, 4, 3)


def test_pipelined_port_is_faster_than_an_unpipelined_baseline() -> None:
    # Same tiles and waves; num_stages 1 serialises each K-step's loads and MFMAs, 2 overlaps them.
    port_cfg = ("triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, "
                "**_porter_amd_knobs(waves_per_eu=0, matrix_instr_nonkdim=16, kpack=1)}, num_warps=4, num_stages=2)")
    base_cfg = "triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64}, num_warps=4, num_stages=1)"
    e = est.estimate_kernel(_entry(), _autotuned(base_cfg), _autotuned(port_cfg))
    assert e is not None and e.verdict == "faster" and e.label == "estimated (perfmodel, gfx950)"
    port_us = _us(GemmConfig(128, 128, 64, num_warps=4, num_stages=2, matrix_instr_nonkdim=16))
    base_us = _us(GemmConfig(128, 128, 64, num_warps=4, num_stages=1))
    assert (e.port_us, e.baseline_us) == (port_us, base_us) and e.ratio == round(port_us / base_us, 4) < 1
    assert e.shape == (4096, 4096, 4096) and e.dtype == "fp16"


def test_baseline_that_overflows_lds_does_not_fit() -> None:
    # (128 + 256) x 64 x 2 B = 48 KiB per stage; num_stages 5 on gfx950 needs at least 4 buffers,
    # 192 KiB, over the 160 KiB a workgroup may address. The port's 2 stages fit.
    port_cfg = ("triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, "
                "**_porter_amd_knobs(waves_per_eu=0, matrix_instr_nonkdim=16, kpack=1)}, num_warps=4, num_stages=2)")
    base_cfg = "triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64}, num_warps=8, num_stages=5)"
    e = est.estimate_kernel(_entry(), _autotuned(base_cfg), _autotuned(port_cfg))
    assert e is not None and e.verdict == "baseline-does-not-fit" and e.baseline_us is None and e.ratio is None
    assert e.port_us == _us(GemmConfig(128, 256, 64, num_warps=4, num_stages=2, matrix_instr_nonkdim=16))
    assert e.port_config == "128x256x64 g8 w4 s2 wpe0 mi16 kp1" and e.baseline_config == ""


def test_autotuned_side_counts_as_its_best_config() -> None:
    # A 32x32 tile gives 16x the workgroups of a 128x128 one at 4096^3 and re-reads A and B 4x as
    # often: the 128x128 config is what autotune would pick on both sides.
    small = "triton.Config({'BLOCK_M': 32, 'BLOCK_N': 32, 'BLOCK_K': 64}, num_warps=4, num_stages=2)"
    big = "triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64}, num_warps=4, num_stages=2)"
    e = est.estimate_kernel(_entry(), _autotuned(small, big), _autotuned(big, small))
    assert e is not None and e.port_config == e.baseline_config == "128x128x64 g8 w4 s2"
    assert e.verdict == "equal" and e.ratio == 1.0


def test_untuned_kernel_uses_the_spec_launch_knobs() -> None:
    entry = _entry(constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=2,
                   original={"num_warps": 8, "num_stages": 1}, port={"num_warps": 4})
    e = est.estimate_kernel(entry, GEMM.format(decorator=""), GEMM.format(decorator=""))
    assert e is not None and (e.baseline_config, e.port_config) == ("128x128x64 g8 w8 s1", "128x128x64 g8 w4 s2")


def test_what_is_not_estimated() -> None:
    plain = GEMM.format(decorator="").replace("tl.dot(tl.load(a_ptr), tl.load(b_ptr), acc)", "acc + 1")
    assert est.estimate_kernel(_entry(), plain, plain) is None  # no tl.dot: not a GEMM
    two = GEMM.format(decorator="").replace("acc = tl.dot(", "acc = tl.dot(tl.load(a_ptr), tl.load(b_ptr), acc)\n"
                                                             "        acc = tl.dot(")
    e = est.estimate_kernel(_entry(constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}), two, two)
    assert e is not None and e.verdict == "not-estimated" and "fused attention" in e.reason
    cfg = "triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 32}, num_warps=4, num_stages=2)"
    f32 = est.estimate_kernel(_entry(dtype="f32"), _autotuned(cfg), _autotuned(cfg))
    assert f32 is not None and f32.verdict == "not-estimated" and "no native tf32 matrix rate" in f32.reason
    hidden = est.estimate_kernel(_entry(), GEMM.format(decorator=""), GEMM.format(decorator=""))
    assert hidden is not None and hidden.reason == "the original's tile sizes (BLOCK_M/N/K) are not visible"


def test_report_shows_the_estimate_labelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verifier attaches the estimate to the Triton unit; md, json and console show it as predicted."""
    from porter.verify import triton_units

    def no_gpu_tools(source_root, port_root, entries, workdir, *, unit=None, max_workers=None):
        return triton_units.TritonUnitResult(unit=unit, verdict="not-checked", reason="triton not run in this test")

    monkeypatch.setattr(triton_units, "verify_triton_unit", no_gpu_tools)
    out = tmp_path / "out"
    state = port(MATMUL, out, PortOptions())
    (e,) = state.units["matmul.py"].estimates
    assert e.kernel == "matmul_kernel" and e.shape == (100, 77, 80) and e.verdict in ("faster", "slower", "equal")
    md = (out / "porter-report.md").read_text()
    assert "## Estimated performance" in md and "Predicted by porter's perfmodel, not measured" in md
    assert f"estimated (perfmodel, gfx950): {e.ratio:.2f}x the hipify time ({e.verdict})" in md
    assert '"estimates": [' in (out / "porter-report.json").read_text()


def test_report_renders_each_estimate_verdict() -> None:
    e = est.estimate_kernel(_entry(),
                            _autotuned("triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64}, num_warps=8, num_stages=5)"),
                            _autotuned("triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64}, num_warps=4, num_stages=2)"))
    state = PortState(run_id="r", source="/s", output="/o",
                      units={"mm.py": UnitResult(unit="mm.py", verdict="compiled", estimates=(e,))})
    report = build_report(state, header_set="h", engine="e", toolchains={}, catalog={})
    md = render_markdown(report)
    row = next(line for line in md.split("## Estimated performance")[1].splitlines() if line.startswith("| `mm.py`"))
    assert "| 4096x4096x4096 fp16 | 128x256x64 g8 w4 s2 | " in row
    assert "| 128x256x64 g8 w8 s5 |" not in row and "estimated (perfmodel, gfx950): the hipify baseline does not fit" in row
    assert report.model_validate_json(render_json(report)) == report
    buf = io.StringIO()
    render_console(report, Console(file=buf, width=200, color_system=None))
    assert "Estimated performance (perfmodel: predicted, not measured)" in buf.getvalue()


# ---- HIP C++ kernels: the instruction-mix estimate (porter.perfmodel.isa) ---------------------
def _wmma_entry():
    return next(k for k in load_spec(ROOT / "fixtures" / "mfma_wmma_gemm").kernels if k.name == "wmma_gemm")


def test_launch_of_a_matmul_spec() -> None:
    # fixtures/mfma_wmma_gemm/porter.toml: m 112, n 80, k 96; grid ceil(80/32) x ceil(112/32) = 3 x 4, block 128
    launch = est.launch_of(_wmma_entry())
    assert (launch.threads, launch.block) == (12 * 128, 128)
    # a f16 [m, k], b f16 [n, k] in; c f32 [m, n] inout (read and written)
    assert launch.compulsory_bytes == 112 * 96 * 2 + 80 * 96 * 2 + 2 * 112 * 80 * 4
    # depth 96: 2 x 96 flops per output element, 112 x 80 outputs over 1536 threads
    assert launch.work_unit == "flops" and launch.work_per_thread == pytest.approx(2 * 96 * 112 * 80 / 1536)


def test_estimate_hip_kernel_verdicts() -> None:
    from porter.perfmodel.isa import Instr, KernelIsa

    entry = _wmma_entry().model_copy(update={"sizes": {"m": 4096, "n": 4096, "k": 4096}})
    fast = KernelIsa("wmma_gemm", (Instr("global_load", 16), Instr("matrix", flops=256), Instr("global_store", 4)),
                     (), 64, 0)
    slow = KernelIsa("wmma_gemm", (Instr("global_load", 2, pattern="irregular"), Instr("fp", flops=2),
                                   Instr("global_store", 4, pattern="strided")), (), 64, 0)
    e = est.estimate_hip_kernel(entry, fast, slow)
    assert e.method == "isa" and e.verdict == "faster" and e.ratio < 1 and e.bound and e.baseline_bound
    assert e.launch == "grid 128x128 x block 128" and e.label == "estimated (perfmodel isa, gfx950)"
    assert est.estimate_hip_kernel(entry, slow, fast).verdict == "slower"
    assert est.estimate_hip_kernel(entry, fast, fast).verdict == "equal"
    gone = est.estimate_hip_kernel(entry, fast, None, "the direct hipify does not compile for gfx950: x")
    assert gone.verdict == "baseline-does-not-compile" and gone.port_us is not None
    assert est.estimate_hip_kernel(entry, None, fast).verdict == "not-estimated"


def test_kernel_named_matches_demangled_names() -> None:
    from porter.perfmodel.isa import KernelIsa

    found = {"wmma_gemm(__half const*, int)": KernelIsa("a", (), (), 1, 0),
             "void sgemm<64>(float*)": KernelIsa("b", (), (), 1, 0)}
    assert est.kernel_named(found, "wmma_gemm").name == "a"
    assert est.kernel_named(found, "sgemm<64>").name == "b" and est.kernel_named(found, "sgemm").name == "b"
    assert est.kernel_named(found, "other") is None


@pytest.mark.toolchain("clang")
def test_hip_port_reports_an_isa_estimate(tmp_path: Path) -> None:
    out = tmp_path / "out"
    state = port(ROOT / "fixtures" / "mfma_wmma_gemm", out, PortOptions(executor="none"))
    (e,) = [e for u in state.units.values() for e in u.estimates]
    # nvcuda::wmma has no HIP counterpart: the translator-only port does not build for gfx950
    assert e.method == "isa" and e.verdict == "baseline-does-not-compile" and e.port_us and "mma.h" in e.reason
    md = (out / "porter-report.md").read_text()
    assert "estimated (perfmodel isa, gfx950): the hipify baseline does not compile for gfx950" in md
