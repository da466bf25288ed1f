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
