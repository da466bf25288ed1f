"""porter.toolchains.triton_aot: parsing of recorded Triton 3.9 output, and real AOT compiles (no GPU).

The kernels live here as source text, written to a temporary folder per session: a folder under
fixtures/ would be taken for a project to port (tests/engine/test_port.py, the Makefile's demo).
The recorded excerpts below are from compile_kernel on MATMUL_SRC with MATMUL and default options
(num_warps 4, num_stages 2), Triton 3.9.0: its bundled LLVM for gfx950, its bundled ptxas 12.9
for sm_90a. They keep the lines the parsers read, in the order the compiler printed them.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from porter.state import KernelResources
from porter.toolchains import ToolchainMissing
from porter.toolchains.triton_aot import (
    PtxResources,
    Specialisation,
    TritonAotOptions,
    amdgpu_resources,
    compile_kernel,
    occupancy_by_lds,
    occupancy_by_registers,
    ptx_resources,
)

HEADER = "import triton\nimport triton.language as tl\n\n\n"
# Kernels both Triton test modules use live in fixtures/verify/triton/; the rest are this file's own.
SHARED = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "triton"
KERNEL_SOURCES = {
    "vector_add.py": (SHARED / "vector_add.py").read_text(),
    # C = A @ B, bf16 inputs, fp32 accumulator and output: tl.dot -> MFMA on gfx950, wgmma on sm_90.
    "matmul_bf16.py": (SHARED / "matmul_bf16.py").read_text(),
    # Triton rejects it while lowering: tl.dot needs 2-D or 3-D blocks.
    "type_error.py": HEADER + """@triton.jit
def bad_dot_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.dot(x, x))
""",
    # Not Python: an unbalanced bracket, as a bad port might leave.
    "syntax_error.py": HEADER + """@triton.jit
def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
""",
}

RECORDED_GFX950_ASM = """\
\tv_mfma_f32_32x32x16_bf16 v[0:15], v[76:79], v[54:57], v[0:15]
\tv_mfma_f32_32x32x16_bf16 v[0:15], v[80:83], v[50:53], v[0:15]
\tv_mfma_f32_32x32x16_bf16 v[0:15], v[20:23], v[26:29], v[0:15]
\tv_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]
\t\t.amdhsa_group_segment_fixed_size 0
; Kernel info:
; codeLenInByte = 3636
; TotalNumSgprs: 52
; NumVgprs: 84
; NumAgprs: 0
; TotalNumVgprs: 84
; ScratchSize: 0
; LDSByteSize: 0 bytes/workgroup (compile time only)
; NumVGPRsForWavesPerEU: 84
; AccumOffset: 84
; Occupancy: 5
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .group_segment_fixed_size: 0
    .name:           matmul_kernel
    .private_segment_fixed_size: 0
    .sgpr_count:     52
    .sgpr_spill_count: 0
    .vgpr_count:     84
    .vgpr_spill_count: 0
    .wavefront_size: 64
\t.end_amdgpu_metadata
"""
RECORDED_GFX950_METADATA = {"name": "matmul_kernel", "shared": 16384, "num_warps": 4, "arch": "gfx950"}
RECORDED_SM90_PTX = """\
.version 9.4
.target sm_90a
\twgmma.fence.sync.aligned;
\twgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%r260,%r261}, %rd57, %rd58, %p8, 1, 1, 0, 1;
\twgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%r260,%r261}, %rd59, %rd60, %p8, 1, 1, 0, 1;
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 0;
"""
RECORDED_SM90_METADATA = {"name": "matmul_kernel", "shared": 16384, "num_warps": 4, "arch": "sm90"}
RECORDED_PTXAS_LOG = """\
ptxas-blackwell info    : 0 bytes gmem
ptxas-blackwell info    : Compiling entry function 'matmul_kernel' for 'sm_90a'
ptxas-blackwell info    : Function properties for matmul_kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas-blackwell info    : Used 128 registers, used 1 barriers
"""

MATMUL = Specialisation(
    signature={"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
               "stride_cm": "i32", "stride_cn": "i32"},
    constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"},
)
VECTOR_ADD = Specialisation(
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 1024},
    divisible_by_16={"x_ptr", "y_ptr", "out_ptr", "n"},
)


def needs_triton() -> None:
    """Skip without Triton on a laptop; in CI (which installs the `triton` extra) a skip is a failure."""
    if importlib.util.find_spec("triton") is None:
        if os.environ.get("CI"):
            pytest.fail("triton missing in CI: install porter-gpu[triton]", pytrace=False)
        pytest.skip("triton not installed (porter-gpu[triton])")


# --- parsing recorded output (always run) ---

def test_recorded_gfx950_matmul() -> None:
    k = amdgpu_resources(RECORDED_GFX950_ASM, RECORDED_GFX950_METADATA, unit="m.py", arch="gfx950")
    assert isinstance(k, KernelResources)
    assert (k.kernel, k.vgprs, k.agprs, k.sgprs) == ("matmul_kernel", 84, 0, 52)
    # Triton's LDS is dynamic: the asm says group_segment_fixed_size 0, the metadata 16384:
    # a 64x32 and a 32x64 bf16 tile (8 KiB) per pipeline stage, 2 stages (3 stages gave 24576).
    assert k.lds_bytes == 16384
    assert (k.scratch_bytes, k.vgpr_spill, k.sgpr_spill) == (0, 0, 0)
    assert k.occupancy == 5  # 84 VGPRs -> 88 allocated, 512 // 88 = 5; LDS would allow 10
    assert k.mfma_count == 4


def test_recorded_sm90_matmul() -> None:
    k = ptx_resources(RECORDED_SM90_PTX, RECORDED_SM90_METADATA, RECORDED_PTXAS_LOG, unit="m.py", arch="sm_90")
    assert (k.ptx_target, k.shared_bytes, k.registers) == ("sm_90a", 16384, 128)
    assert (k.spill_store_bytes, k.spill_load_bytes) == (0, 0)
    assert k.mma_kinds == (("wgmma.mma_async", 2),) and k.mma_count == 2  # fence/commit/wait are not MMAs
    without_ptxas = ptx_resources(RECORDED_SM90_PTX, RECORDED_SM90_METADATA, None, unit="m.py", arch="sm_90")
    assert without_ptxas.registers is None and without_ptxas.mma_count == 2


def test_missing_kernel_info_is_an_error() -> None:
    with pytest.raises(ValueError, match="no kernel info"):
        amdgpu_resources("\tv_add_f32 v0, v1, v2\n", {}, unit="m.py", arch="gfx950")


def test_occupancy_rules() -> None:
    assert occupancy_by_registers(84, 0) == 5
    assert occupancy_by_registers(0, 0) == 8 and occupancy_by_registers(64, 0) == 8
    # AGPRs follow the arch VGPRs rounded up to 4: 130 -> 132 + 128 = 260 -> 264 allocated.
    assert occupancy_by_registers(130, 128) == 1
    assert occupancy_by_registers(126, 128) == 2  # 128 + 128 = 256
    assert occupancy_by_registers(512, 0) == 1
    assert occupancy_by_lds(0, 4, "gfx950") == 8
    assert occupancy_by_lds(64 * 1024, 4, "gfx950") == 2  # 2 workgroups of 4 waves over 4 SIMDs
    assert occupancy_by_lds(64 * 1024, 4, "gfx942") == 1
    assert occupancy_by_lds(160 * 1024, 16, "gfx950") == 4


def test_options_and_specialisation_are_validated() -> None:
    assert TritonAotOptions().gpu_target() == ("hip", "gfx950", 64)
    assert TritonAotOptions(target="sm_90").gpu_target() == ("cuda", 90, 32)
    with pytest.raises(ValueError, match="target"):
        TritonAotOptions(target="sm90")
    with pytest.raises(ValueError, match="num_warps"):
        TritonAotOptions(num_warps=3)
    with pytest.raises(ValueError, match="AMD option"):
        TritonAotOptions(target="sm_90", waves_per_eu=2)
    with pytest.raises(ValueError, match="not a Triton type"):
        Specialisation(signature={"x": "float*"})
    with pytest.raises(ValueError, match="only pointers and integers"):
        Specialisation(signature={"x": "*fp32", "s": "fp32"}, divisible_by_16={"s"})
    with pytest.raises(ValueError, match="not in the signature"):
        Specialisation(signature={"x": "*fp32"}, divisible_by_16={"y"})
    with pytest.raises(ValueError, match="both"):
        Specialisation(signature={"B": "i32"}, constexprs={"B": 4})
    with pytest.raises(TypeError):
        MATMUL.signature["M"] = "i64"  # frozen all the way down


# --- real compiles (Triton's CPU-side compiler; no GPU) ---

@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("triton-kernels")
    for name, text in KERNEL_SOURCES.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture(scope="module")
def compiled(kernels: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    needs_triton()
    work = tmp_path_factory.mktemp("triton-aot")
    jobs = {
        "add-gfx950": ("vector_add.py", "add_kernel", VECTOR_ADD, "gfx950"),
        "mm-gfx950": ("matmul_bf16.py", "matmul_kernel", MATMUL, "gfx950"),
        "mm-sm_90": ("matmul_bf16.py", "matmul_kernel", MATMUL, "sm_90"),
    }
    return {key: compile_kernel(kernels / f, k, spec, TritonAotOptions(target=t), work)
            for key, (f, k, spec, t) in jobs.items()}


def test_vector_add_gfx950(compiled: dict) -> None:
    build, k = compiled["add-gfx950"]
    assert build.ok, build.stderr
    assert build.toolchain == "triton-aot" and any(a.endswith(".amdgcn") for a in build.artifacts)
    assert isinstance(k, KernelResources) and k.arch == "gfx950" and k.kernel == "add_kernel"
    assert k.mfma_count == 0 and k.lds_bytes == 0 and k.agprs == 0
    assert 1 <= k.vgprs <= 64 and k.occupancy == 8 and k.vgpr_spill == 0


def test_matmul_gfx950_uses_mfma(compiled: dict) -> None:
    build, k = compiled["mm-gfx950"]
    assert build.ok, build.stderr
    assert isinstance(k, KernelResources)
    assert k.mfma_count >= 1
    assert 32 <= k.vgprs + k.agprs <= 512 and k.vgpr_spill == 0
    assert 8 * 1024 <= k.lds_bytes <= 64 * 1024  # the A and B tiles, staged through LDS
    assert 1 <= k.occupancy <= 8


def test_matmul_sm90_control_uses_wgmma(compiled: dict) -> None:
    build, k = compiled["mm-sm_90"]
    assert build.ok, build.stderr
    assert isinstance(k, PtxResources)
    assert k.mma_count >= 1 and k.ptx_target.startswith("sm_90")
    assert k.shared_bytes > 0
    assert k.registers is None or 32 <= k.registers <= 255


@pytest.mark.parametrize(("fixture", "kernel", "spec", "message"), [
    ("type_error.py", "bad_dot_kernel", Specialisation({"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 64}),
     "equal ranks >= 2"),
    ("syntax_error.py", "add_kernel", Specialisation({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                                                     {"BLOCK": 64}), "SyntaxError"),
    ("vector_add.py", "add_kernel", Specialisation({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                                                   {"BLOCK": 64}), "no type or constexpr value for: y_ptr"),
    ("vector_add.py", "mul_kernel", VECTOR_ADD, "no @triton.jit kernel named 'mul_kernel'"),
])
def test_failed_compile_is_data(kernels: Path, tmp_path: Path, fixture: str, kernel: str, spec: Specialisation,
                                message: str) -> None:
    needs_triton()
    build, k = compile_kernel(kernels / fixture, kernel, spec, TritonAotOptions(), tmp_path)
    assert not build.ok and build.rc == 1 and k is None
    assert message in build.stderr
    assert build.artifacts == ()
    assert Path(build.cmd[-1]).is_file()  # the request stays, so `cmd` replays the failure


def test_missing_triton_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "triton" else real(name, *a))
    with pytest.raises(ToolchainMissing, match="Python package triton"):
        compile_kernel(tmp_path / "k.py", "k", VECTOR_ADD, TritonAotOptions(), tmp_path)
