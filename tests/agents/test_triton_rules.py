"""The TRI### rules beyond their goldens: the gfx950 config derivation, and the ported fixture
kernels compiled for gfx950 by Triton's AMD backend (no GPU needed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from porter.agents.microarch import triton_configs as tc

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"


@pytest.mark.parametrize("nv, shape, want", [
    (4, tc.KernelShape(), 2),              # vector add: 128 threads stay 128
    (8, tc.KernelShape(), 4),
    (1, tc.KernelShape(), 1),              # never below one wave
    (32, tc.KernelShape(), 16),            # 1024 threads: the workgroup limit
    (4, tc.KernelShape(dots=1), 4),        # a GEMM keeps one wave per SIMD
    (8, tc.KernelShape(dots=1), 4),
    (16, tc.KernelShape(dots=1), 8),
])
def test_num_warps_keeps_threads_per_program(nv: int, shape: tc.KernelShape, want: int) -> None:
    assert tc.amd_num_warps(nv, shape) == want


def test_num_stages_by_kernel_kind_and_lds() -> None:
    gemm = tc.KernelShape(dots=1, block_m=128, block_n=256, block_k=64)
    assert tc.amd_num_stages(5, gemm) == 2
    # (128*64 + 64*256) * 2 B = 48 KiB per stage
    assert tc.lds_bytes(gemm, 2) == 49_152
    huge = tc.KernelShape(dots=1, block_m=256, block_n=256, block_k=256)  # 256 KiB per stage
    assert tc.amd_num_stages(3, huge) == 1
    assert tc.amd_num_stages(3, tc.KernelShape(dots=2)) == 1
    assert tc.amd_num_stages(4, tc.KernelShape()) == 2
    assert tc.amd_num_stages(1, tc.KernelShape()) == 1
    assert tc.amd_num_stages(None, tc.KernelShape()) is None


def test_gemm_gets_the_amd_knobs() -> None:
    big = tc.derive(8, 4, tc.KernelShape(dots=1, block_m=128, block_n=256, block_k=64))
    # 128*256 fp32 accumulators over 4 waves of 64 lanes: 128 VGPRs per lane -> waves_per_eu 2
    assert (big.num_warps, big.num_stages, big.extras()) == (4, 2, {"waves_per_eu": 2, "matrix_instr_nonkdim": 16,
                                                                    "kpack": 1})
    small = tc.derive(4, None, tc.KernelShape(dots=1, block_m=64, block_n=128, block_k=32))
    assert (small.num_warps, small.num_stages, small.extras()["waves_per_eu"]) == (4, 2, 0)
    assert tc.derive(8, 4, tc.KernelShape()).extras() == {}


def _golden(project: str, name: str):
    path = GOLDEN / project / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"golden_{project}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _compile_gfx950(fn, signature: dict, constexprs: dict, **options):
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("hip", "gfx950", 64), options=options)


def test_ported_inline_ptx_compiles_for_gfx950() -> None:
    m = _golden("triton_inline_ptx", "fast_gelu")
    k = _compile_gfx950(m.gelu_kernel,
                        {"x_ptr": "*fp32", "y_ptr": "*fp32", "packed_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
                        {"BLOCK": 1024}, num_warps=2, waves_per_eu=0)
    asm = k.asm["amdgcn"]
    assert "v_exp_f32" in asm and "v_rcp_f32" in asm


def test_ported_matmul_configs_compile_for_gfx950(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    # Load the port as a ROCm build of torch would: _porter_amd_knobs then passes the AMD knobs.
    monkeypatch.setattr(torch.version, "hip", "6.3.0", raising=False)
    m = _golden("triton_matmul", "matmul")
    sig = {n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm",
                              "stride_cn")}
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", **sig,
           **{k: "constexpr" for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")}}
    for config in m.matmul_kernel.configs:
        meta = dict(config.kwargs)
        knobs = {k: meta.pop(k) for k in tc.AMD_GEMM_EXTRAS}
        k = _compile_gfx950(m.matmul_kernel.fn, sig, meta, num_warps=config.num_warps,
                            num_stages=config.num_stages, **knobs)
        assert "v_mfma" in k.asm["amdgcn"]
        assert k.metadata.shared <= tc.LDS_BYTES_GFX950


def test_ported_attention_tma_path_compiles_for_gfx950() -> None:
    m = _golden("triton_flash_attention", "attention")
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "sm_scale": "fp32", "N_CTX": "i32",
           **{k: "constexpr" for k in ("HEAD_DIM", "BLOCK_M", "BLOCK_N", "USE_TMA")}}
    for use_tma in (True, False):
        k = _compile_gfx950(m.attn_fwd, sig, {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "USE_TMA": use_tma},
                            num_warps=4, num_stages=1, waves_per_eu=0, matrix_instr_nonkdim=16, kpack=1)
        assert "v_mfma" in k.asm["amdgcn"]


def test_ported_configs_carry_amd_knobs_only_on_rocm(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    nvidia = _golden("triton_matmul", "matmul")
    assert not any(k in c.kwargs for c in nvidia.matmul_kernel.configs for k in tc.AMD_GEMM_EXTRAS)
    monkeypatch.setattr(torch.version, "hip", "6.3.0", raising=False)
    rocm = _golden("triton_matmul", "matmul")
    assert all(c.kwargs["matrix_instr_nonkdim"] == 16 and c.kwargs["kpack"] == 1 for c in rocm.matmul_kernel.configs)
