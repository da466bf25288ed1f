"""Cooperative-groups tiles wider than a wavefront (CUDA's multi-warp tiles with block_tile_memory):
HIP015 rewrites them to porter's multi-wave tiles and SHIM040 brings shims/compat/multi_wave_tile.h
into porter_compat.h; the port compiles for gfx950 and under hip_on_cuda with nvcc. The numbers:
fixtures/hip_on_cuda/multi_wave_tile.hip.cu against its CPU reference, here on a CPU model of
waves of 64 and of 32 lanes (tests/agents/cpu_waves: one thread per lane), and on an NVIDIA GPU
under hip_on_cuda by fixtures/hip_on_cuda/run.sh."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions
from porter.toolchains.hipcc import hip_on_cuda_flags
from porter.toolchains.nvcc import find_nvcc

ROOT = Path(__file__).resolve().parents[2]
HOC = ROOT / "shims" / "hip_on_cuda"
FIXTURE = ROOT / "fixtures" / "hip_on_cuda" / "multi_wave_tile.hip.cu"
CPU_WAVES = Path(__file__).resolve().parent / "cpu_waves"

# cuda-samples reduction's kernel 9 in small: a tile of half the block through a helper templated
# on the group, which a 32-thread tile also takes.
KERNEL = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <typename T, typename Group> __device__ T reduce_n(T in, Group &threads) {
    return cg::reduce(threads, in, cg::plus<T>());
}

template <class T, size_t BlockSize, size_t GroupSize>
__global__ void group_sums(const T *in, T *out) {
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto group = cg::tiled_partition<GroupSize>(cta);
    T v = reduce_n(in[blockIdx.x * BlockSize + threadIdx.x], group);
    if (group.thread_rank() == 0) out[blockIdx.x * group.meta_group_size() + group.meta_group_rank()] = v;
    cg::sync(cta);
}

__global__ void warp_sums(const float *in, float *out) {
    auto cta = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(cta);
    float v = reduce_n(in[threadIdx.x], warp);
    if (warp.thread_rank() == 0) out[threadIdx.x / 32] = v;
}

void launch(const float *in, float *out, const int *iin, int *iout, int which) {
    switch (which) {
    case 0: group_sums<float, 512, 256><<<4, 512>>>(in, out); break;
    case 1: group_sums<int, 256, 128><<<4, 256>>>(iin, iout); break;
    case 2: group_sums<float, 64, 32><<<4, 64>>>(in, out); break;
    default: warp_sums<<<1, 128>>>(in, out);
    }
}
"""


def _port(tmp_path: Path, verify: bool):
    src = tmp_path / "src"
    src.mkdir()
    (src / "sums.cu").write_text(KERNEL)
    out = tmp_path / "out"
    return port(src, out, PortOptions(verify=verify)), out


def test_multi_warp_tiles_become_porter_tiles(tmp_path: Path) -> None:
    state, out = _port(tmp_path, verify=False)
    unit = (out / "sums.cu").read_text()
    assert "__shared__ porter::tile_scratch<BlockSize> scratch;" in unit
    assert "porter::tiled_partition<GroupSize>(cta, scratch)" in unit
    assert "cg::this_thread_block(scratch)" not in unit and "block_tile_memory" not in unit
    assert "return porter::reduce(threads, in, porter::plus<T>());" in unit
    assert '#include "porter_compat.h"' in unit
    header = (out / "porter_compat.h").read_text()
    assert "class multi_wave_tile" in header and "tile_wave_lanes = __AMDGCN_WAVEFRONT_SIZE" in header
    open_errors = [f for f in state.findings if f.rule in ("HIP015", "WAVE009") and f.severity == "error"
                   and not f.fixed]
    assert not open_errors, [f.message for f in open_errors]
    assert any(f.rule == "SHIM040" for f in state.findings)


@pytest.mark.toolchain("clang")
def test_port_compiles_for_gfx950(tmp_path: Path) -> None:
    state, _ = _port(tmp_path, verify=True)
    assert state.units["sums.cu"].verdict == "compiled", state.units["sums.cu"].reason


@pytest.mark.toolchain("nvcc")
def test_port_compiles_under_hip_on_cuda(tmp_path: Path) -> None:
    _, out = _port(tmp_path, verify=False)
    cmd = [str(find_nvcc()), "-c", "-std=c++17", "-arch=sm_90", *hip_on_cuda_flags(HOC),
           "-x", "cu", str(out / "sums.cu"), "-o", str(tmp_path / "sums.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("wave", [64, 32])
def test_fixture_passes_on_a_cpu_model_of_waves(wave: int, tmp_path: Path) -> None:
    cxx = shutil.which("g++") or shutil.which("c++")
    assert cxx, "a C++20 host compiler (nvcc needs one too)"
    exe = tmp_path / f"multi_wave_tile_w{wave}"
    build = subprocess.run([cxx, "-std=c++20", "-O1", "-pthread", f"-DPORTER_CPU_WAVE={wave}", f"-I{CPU_WAVES}",
                            "-x", "c++", str(FIXTURE), "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    # a barrier that lets a thread through early gives wrong values; one that mixes tiles' counts hangs
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.startswith("PASS multi_wave_tile"), run.stdout[-2000:]
