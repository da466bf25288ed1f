"""CUDA's cg::labeled_partition and `#if __CUDA_ARCH__ >= 700` (cuda-samples warpAggregatedAtomicsCG):
HIP016 opens the device branch for gfx950, HIP017 rewrites the call to porter::labeled_partition,
SHIM041 brings shims/compat/labeled_partition.h into porter_compat.h, and WAVE009's cg::reduce
covers groups of any size. The port compiles for gfx950 and under hip_on_cuda with nvcc. The
numbers: fixtures/hip_on_cuda/labeled_partition.hip.cu against its CPU reference, here on the CPU
model of 64-lane waves (tests/agents/cpu_waves), on an NVIDIA GPU by fixtures/hip_on_cuda/run.sh."""

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
FIXTURE = ROOT / "fixtures" / "hip_on_cuda" / "labeled_partition.hip.cu"
CPU_WAVES = Path(__file__).resolve().parent / "cpu_waves"

# warpAggregatedAtomicsCG's atomicAggMaxMulti and its kernel, in small.
KERNEL = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 700
__device__ void atomicAggMaxMulti(const int bucket, int *counter, const int valueForMax) {
    cg::coalesced_group active = cg::coalesced_threads();
    auto labeledGroup = cg::labeled_partition(active, bucket);
    const int maxValueInGroup = cg::reduce(labeledGroup, valueForMax, cg::greater<int>());
    if (labeledGroup.thread_rank() == 0) atomicMax(&counter[bucket], maxValueInGroup);
}
#endif

__global__ void maxInBuckets(const int *src, const int *values, int *bucketsMax, int n) {
#if __CUDA_ARCH__ >= 700
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) atomicAggMaxMulti(src[i], bucketsMax, values[i]);
#endif
}

void launch(const int *src, const int *values, int *bucketsMax, int n) {
    maxInBuckets<<<n / 256, 256>>>(src, values, bucketsMax, n);
}
"""


def _port(tmp_path: Path, verify: bool):
    src = tmp_path / "src"
    src.mkdir()
    (src / "buckets.cu").write_text(KERNEL)
    out = tmp_path / "out"
    return port(src, out, PortOptions(verify=verify)), out


def test_device_branch_opens_and_labeled_partition_becomes_porters(tmp_path: Path) -> None:
    state, out = _port(tmp_path, verify=False)
    unit = (out / "buckets.cu").read_text()
    assert "__CUDA_ARCH__ >= 700" not in unit.replace("/* __CUDA_ARCH__ >= 700", "")
    assert unit.count("#if defined(__HIP_DEVICE_COMPILE__) /* __CUDA_ARCH__ >= 700: gfx950 as sm_70 */") == 2
    assert "porter::labeled_partition(active, bucket)" in unit and "cg::labeled_partition" not in unit
    assert "while (porter_o < porter_n) porter_o *= 2;" in unit  # cg::reduce over a group of any size
    assert '#include "porter_compat.h"' in unit
    assert "labeled_partition(const cooperative_groups::coalesced_group& parent" in (out / "porter_compat.h").read_text()
    arch = [f for f in state.findings if f.rule == "HIP016"]
    assert len(arch) == 2 and all(f.fixed for f in arch)
    assert all("device pass takes the branch" in f.message for f in arch)
    open_errors = [f.message for f in state.findings if f.severity == "error" and not f.fixed
                   and f.rule in ("HIP016", "HIP017", "WAVE009", "SHIM041")]
    assert not open_errors, open_errors


def test_inline_ptx_in_the_opened_branch_stays_flagged(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "lane.cu").write_text("__device__ unsigned lane() {\n#if __CUDA_ARCH__ >= 300\n  unsigned r;\n"
                                 "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n  return r;\n#else\n"
                                 "  return threadIdx.x % 32;\n#endif\n}\n")
    state = port(src, tmp_path / "out", PortOptions(verify=False))
    flagged = [f for f in state.findings if f.rule == "HIP016" and f.severity == "error"]
    assert len(flagged) == 1 and not flagged[0].fixed and "`asm`" in flagged[0].message


@pytest.mark.toolchain("clang")
def test_port_compiles_for_gfx950(tmp_path: Path) -> None:
    state, _ = _port(tmp_path, verify=True)
    assert state.units["buckets.cu"].verdict == "compiled", state.units["buckets.cu"].reason


@pytest.mark.toolchain("nvcc")
def test_port_compiles_under_hip_on_cuda(tmp_path: Path) -> None:
    _, out = _port(tmp_path, verify=False)
    cmd = [str(find_nvcc()), "-c", "-std=c++17", "-arch=sm_90", *hip_on_cuda_flags(HOC),
           "-x", "cu", str(out / "buckets.cu"), "-o", str(tmp_path / "buckets.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr


def test_fixture_passes_on_a_cpu_model_of_waves(tmp_path: Path) -> None:
    cxx = shutil.which("g++") or shutil.which("c++")
    assert cxx, "a C++20 host compiler (nvcc needs one too)"
    exe = tmp_path / "labeled_partition"
    build = subprocess.run([cxx, "-std=c++20", "-O1", "-pthread", "-DPORTER_CPU_WAVE=64", f"-I{CPU_WAVES}",
                            "-x", "c++", str(FIXTURE), "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.startswith("PASS labeled_partition"), run.stdout[-2000:]
