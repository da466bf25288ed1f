"""porter.toolchains.nvcc: options, lookup, and real compiles of the CUDA originals."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.toolchains import ToolchainMissing
from porter.toolchains.nvcc import NvccOptions, build_command, compile_unit, find_nvcc


@pytest.mark.parametrize("kwargs", [{"arch": "gfx950"}, {"arch": "compute_90"}, {"std": "c++14"},
                                    {"defines": ("A B",)}])
def test_options_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        NvccOptions(**kwargs)


def test_command_is_compile_only() -> None:
    opts = NvccOptions(arch="sm_90a", include_dirs=("inc",), defines=("N=4",))
    cmd = build_command(Path("/x/nvcc"), Path("/s/k.cu"), opts, Path("/w/k.o"))
    assert cmd == ["/x/nvcc", "-c", "-std=c++17", "-arch=sm_90a", "-I", "inc", "-DN=4",
                   "/s/k.cu", "-o", "/w/k.o"]


def test_missing_nvcc_names_paths_and_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTER_NVCC", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("porter.toolchains.nvcc.NVCC_CANDIDATES", ("nvcc", "/nonexistent/cuda/bin/nvcc"))
    with pytest.raises(ToolchainMissing) as err:
        find_nvcc()
    assert all(s in str(err.value) for s in ("nvcc", "/nonexistent/cuda/bin/nvcc", "PORTER_NVCC"))


@pytest.mark.toolchain("nvcc")
def test_kernel_compiles(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("""
__global__ void warp_sum(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x == 0) *out = v;
}
""")
    build = compile_unit(src, NvccOptions(), tmp_path / "build")
    assert build.ok, build.stderr
    assert build.toolchain == "nvcc"
    assert Path(build.artifacts[0]).stat().st_size > 0


@pytest.mark.toolchain("nvcc")
def test_failed_compile_is_data(tmp_path: Path) -> None:
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void k() { undeclared(); }\n")
    build = compile_unit(src, NvccOptions(), tmp_path / "build")
    assert not build.ok and build.artifacts == ()
    assert "undeclared" in build.stderr


# ---- SASS: what porter.perfmodel.isa reads (recorded: fixtures/toolchains/nvcc13/lanes_sm90.*) ----
def _lanes_kernels():
    from porter.toolchains.nvcc import parse_ptxas_usage, parse_sass

    rec = Path(__file__).resolve().parents[2] / "fixtures" / "toolchains" / "nvcc13"
    usage = parse_ptxas_usage((rec / "lanes_sm90.ptxas.txt").read_text())
    return {k.name: k for k in parse_sass((rec / "lanes_sm90.sass").read_text(), usage)}


def _global(k) -> list[tuple[str, int, str]]:
    return [(i.cls, i.bytes, i.pattern) for i in k.instrs if i.cls in ("global_load", "global_store", "atomic")]


def test_sass_access_patterns_and_resources() -> None:
    ks = _lanes_kernels()
    assert set(ks) == {"_Z10contiguousPKfPfi", "_Z10row_stridePKfPfi", "_Z13broadcast_sumPKfPfi"}
    assert _global(ks["_Z10contiguousPKfPfi"]) == [("global_load", 4, "contiguous"), ("global_store", 4, "contiguous")]
    # row * ld with ld a kernel argument: lanes a runtime stride apart
    assert _global(ks["_Z10row_stridePKfPfi"]) == [("global_load", 4, "strided"), ("global_store", 4, "strided")]
    # x[blockIdx.x * n + k] is one address per warp; the atomic after the shuffles is lane 0's
    assert _global(ks["_Z13broadcast_sumPKfPfi"]) == [("global_load", 4, "uniform"), ("atomic", 4, "uniform")]
    assert all(k.registers in (10, 12) and k.lds_bytes == 0 for k in ks.values())


def test_sass_loops_and_classes() -> None:
    k = _lanes_kernels()["_Z13broadcast_sumPKfPfi"]
    assert len(k.loops) == 1  # the rolled k loop; the BRA-to-self after EXIT is padding
    body = [k.instrs[i].cls for i in k.loops[0]]
    assert "global_load" in body and "fp" in body and "shuffle" not in body
    assert sum(i.cls == "shuffle" for i in k.instrs) == 5  # offsets 16, 8, 4, 2, 1
    assert not _lanes_kernels()["_Z10contiguousPKfPfi"].loops


@pytest.mark.parametrize(("op", "cls", "nbytes", "flops"), [
    ("LDG.E.128", "global_load", 16, 0), ("LDG.E.U16", "global_load", 2, 0), ("STG.E.64", "global_store", 8, 0),
    ("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", "atomic", 4, 0), ("LDS.128", "lds_read", 16, 0), ("STS", "lds_write", 4, 0),
    ("FFMA", "fp", 0, 2), ("HFMA2", "fp", 0, 4), ("HFMA2.MMA", "other", 0, 0), ("HMMA.16816.F32.BF16", "matrix", 0, 128),
    ("BAR.SYNC.DEFER_BLOCKING", "barrier", 0, 0), ("SHFL.DOWN", "shuffle", 0, 0), ("IMAD.WIDE", "other", 0, 0),
])
def test_sass_classes(op: str, cls: str, nbytes: int, flops: int) -> None:
    from porter.toolchains.nvcc import classify_sass

    ins = classify_sass(op)
    assert ins is not None and (ins.cls, ins.bytes, ins.flops) == (cls, nbytes, flops)
    assert classify_sass("NOP") is None
