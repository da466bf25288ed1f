"""shims/hip_on_cuda: HIP ports compile with nvcc against the wave64-emulating headers.

No GPU is needed: these tests build the fixtures of fixtures/hip_on_cuda (compile only, -c),
and check that the headers reject what ROCm 6.3 rejects (a 32-bit lane mask). Running the
fixtures needs an NVIDIA GPU: fixtures/hip_on_cuda/run.sh.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from porter.toolchains.nvcc import find_nvcc

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "shims" / "hip_on_cuda"
FIXTURES = ROOT / "fixtures" / "hip_on_cuda"
FIXTURE_NAMES = ("wave32_reduce", "wave64_reduce", "ballot_popc", "mfma")
MASK_MESSAGE = "The mask must be a 64-bit integer"


def _compile(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    cmd = [str(find_nvcc()), "-c", "-std=c++17", "-arch=sm_90", f"-I{INCLUDE}", str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent, timeout=600)


def test_fixture_set_is_complete() -> None:
    found = sorted(p.name.removesuffix(".hip.cu") for p in FIXTURES.glob("*.hip.cu"))
    assert found == sorted(FIXTURE_NAMES)
    assert (FIXTURES / "run.sh").is_file()


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_compiles(name: str, tmp_path: Path) -> None:
    proc = _compile(FIXTURES / f"{name}.hip.cu", tmp_path / f"{name}.o")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"{name}.o").is_file()


KERNEL_32BIT_MASK = """
#include <hip/hip_runtime.h>
__global__ void k(float* v) {
  float x = v[threadIdx.x];
  x += __shfl_down_sync(0xffffffffu, x, 16);  // CUDA's 32-bit mask, carried over by a port
  v[threadIdx.x] = x;
}
"""


@pytest.mark.toolchain("nvcc")
def test_32bit_mask_is_rejected(tmp_path: Path) -> None:
    src = tmp_path / "mask32.hip.cu"
    src.write_text(KERNEL_32BIT_MASK)
    proc = _compile(src, tmp_path / "mask32.o")
    assert proc.returncode != 0
    assert MASK_MESSAGE in proc.stderr + proc.stdout


@pytest.mark.toolchain("nvcc")
def test_64bit_mask_and_warp_size_compile(tmp_path: Path) -> None:
    src = tmp_path / "mask64.hip.cu"
    src.write_text(KERNEL_32BIT_MASK.replace("0xffffffffu", "0xffffffffffffffffull") + """
static_assert(warpSize == 64, "hip_on_cuda emulates gfx9 wave64");
int wave_size_of(const hipDeviceProp_t& p) { return p.warpSize; }
""")
    proc = _compile(src, tmp_path / "mask64.o")
    assert proc.returncode == 0, proc.stderr
