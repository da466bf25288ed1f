"""The hipcc stand-ins: argument translation (no compiler) and real builds through a Makefile and CMake."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.toolchains.hipcc import (
    HipccConfig, clang_command, cmake_clang_command, hipcc_env, hipcc_root, hipconfig, nvcc_command, run_build,
)

GFX = HipccConfig(kind="gfx950", arch="gfx950", root="/r", compiler="/c/clang++", include="/ov",
                  device_libs="/r/amdgcn/bitcode")
NV = HipccConfig(kind="hip-on-cuda", arch="gfx950", root="/r", compiler="/c/nvcc", include="/hoc")


def test_clang_compiles_cu_and_cpp_as_hip_and_adds_the_target() -> None:
    cmd = clang_command(["-O3", "-std=c++17", "-c", "k.cu", "-o", "k.o", "-I", "inc", "-DN=4"], GFX)
    assert cmd[:5] == ["/c/clang++", "--rocm-path=/r", "--rocm-device-lib-path=/r/amdgcn/bitcode", "-I", "/ov"]
    assert "--offload-arch=gfx950" in cmd
    assert cmd[cmd.index("k.cu") - 2:cmd.index("k.cu")] == ["-x", "hip"]
    assert "--hip-link" not in cmd  # -c: nothing to link
    assert cmd[cmd.index("-I", 5) + 1] == "inc"  # the value of -I is not an input


def test_clang_link_line_switches_language_back_for_objects() -> None:
    cmd = clang_command(["main.cpp", "k.o", "-lhipblas", "-o", "app", "--offload-arch=gfx942"], GFX)
    assert cmd[-1] == "--hip-link"
    assert cmd.count("--offload-arch=gfx942") == 1 and "--offload-arch=gfx950" not in cmd
    i = cmd.index("main.cpp")
    assert cmd[i - 2:i] == ["-x", "hip"] and cmd[i + 1:i + 4] == ["-x", "none", "k.o"]


def test_clang_keeps_what_hipcc_would_reject() -> None:
    # an nvcc option left in a ported Makefile reaches clang, which fails on it as amdclang++ does
    cmd = clang_command(["-arch=sm_60", "-Xcompiler", "-fopenmp", "a.cu"], GFX)
    assert "-arch=sm_60" in cmd and "-Xcompiler" in cmd
    assert clang_command(["-x", "c++", "a.cpp", "-c"], GFX).count("-x") == 1  # the user's -x wins


def test_cmake_clang_drops_the_system_include_that_breaks_include_next() -> None:
    cmd = cmake_clang_command(["-isystem", "/usr/include", "-isystem", "/opt/x", "-c", "a.hip"], GFX)
    assert "/usr/include" not in cmd and cmd[-4:] == ["-isystem", "/opt/x", "-c", "a.hip"]


def test_nvcc_maps_amd_options_and_keeps_hip_clang_semantics() -> None:
    (cmd,) = nvcc_command(["--offload-arch=gfx950", "-fgpu-rdc", "-munsafe-fp-atomics", "-ffast-math", "-O3",
                           "-fopenmp", "-c", "k.hip", "-o", "k.o"], NV)
    assert cmd[:6] == ["/c/nvcc", "-arch=sm_90", "--expt-relaxed-constexpr", "--extended-lambda", "-I", "/hoc"]
    assert "-rdc=true" in cmd and "--use_fast_math" in cmd and cmd[cmd.index("-fopenmp") - 1] == "-Xcompiler"
    assert not any(a.startswith(("--offload-arch", "-munsafe")) for a in cmd)
    assert cmd[cmd.index("k.hip") - 2:cmd.index("k.hip")] == ["-x", "cu"]


def test_nvcc_compiles_hip_sources_apart_on_a_mixed_link(tmp_path: Path) -> None:
    steps = nvcc_command(["main.hip", "util.o", "-lhipblas", "-lamdhip64", "-Wl,-rpath,/x", "-o", "app"], NV, tmp_path)
    assert len(steps) == 2
    first, link = steps
    assert first[first.index("main.hip") - 3:first.index("main.hip")] == ["-x", "cu", "-c"]
    assert "-lcublas" not in first and "-o" in first and first[first.index("-o") + 1].endswith("main.o")
    assert "-lcublas" in link and "-lamdhip64" not in link and "main.hip" not in link
    assert link[link.index("-Xlinker") + 1] == "-rpath,/x"


def test_hipconfig_answers_what_build_files_ask() -> None:
    assert hipconfig(["--platform"], GFX) == "amd"
    assert hipconfig(["--platform"], NV) == "nvidia"
    assert hipconfig(["--rocmpath"], GFX) == "/r"
    assert hipconfig(["--compiler"], NV) == "nvcc"
    with pytest.raises(SystemExit):
        hipconfig(["--bogus"], GFX)


def test_config_rejects_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        HipccConfig(kind="rocm", arch="gfx950", root="/r", compiler="c", include="i")


PORTED_MAKEFILE = """\
ROCM_PATH ?= /opt/rocm
HIPCC := $(ROCM_PATH)/bin/hipcc
FLAGS := -O3 --offload-arch=gfx950 -ffast-math
saxpy: main.o saxpy.o
\t$(HIPCC) $(FLAGS) $^ -o $@
%.o: %.cu
\t$(HIPCC) $(FLAGS) -c $< -o $@
main.o: main.cpp
\tg++ -O2 -D__HIP_PLATFORM_AMD__ -c $< -o $@
"""
SAXPY = """\
#include <hip/hip_runtime.h>
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + sqrtf(y[i]) + warpSize;
}
void run(int n, float a, const float *x, float *y) { saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y); }
"""
MAIN = "void run(int, float, const float *, float *);\nint main() { run(0, 1.f, nullptr, nullptr); return 0; }\n"


@pytest.mark.toolchain("clang")
def test_gfx950_stand_in_builds_a_ported_makefile_project(tmp_path: Path) -> None:
    root = hipcc_root("gfx950", tmp_path / "tc")
    assert (root / "bin" / "hipcc").is_file() and (root / "bin" / "hipconfig").is_file()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "Makefile").write_text(PORTED_MAKEFILE)
    (proj / "saxpy.cu").write_text(SAXPY)
    (proj / "main.cpp").write_text(MAIN)
    env = hipcc_env(root, os.environ)
    assert env["PATH"].split(os.pathsep)[0] == str(root / "bin") and env["ROCM_PATH"] == str(root)
    build = run_build(["make"], proj, root)
    assert build.ok, build.stderr
    assert (proj / "saxpy").is_file()
    # the device code really was compiled for gfx950: the fat binary carries its code object
    assert b"gfx950" in (proj / "saxpy.o").read_bytes()
    # and an nvcc option a port left behind fails the build, as on ROCm
    (proj / "Makefile").write_text(PORTED_MAKEFILE.replace("-ffast-math", "-arch=sm_60"))
    (proj / "saxpy.o").unlink()
    assert not run_build(["make", "saxpy.o"], proj, root).ok


@pytest.mark.toolchain("clang")
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is installed by `make toolchains`")
def test_gfx950_stand_in_builds_a_ported_cmake_project(tmp_path: Path) -> None:
    root = hipcc_root("gfx950", tmp_path / "tc")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "saxpy.cu").write_text(SAXPY)
    (proj / "main.cpp").write_text(MAIN)
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(saxpy LANGUAGES CXX HIP)\nfind_package(hip REQUIRED)\n"
        "set(CMAKE_HIP_ARCHITECTURES gfx950)\nadd_executable(saxpy main.cpp saxpy.cu)\n"
        "set_source_files_properties(saxpy.cu PROPERTIES LANGUAGE HIP)\n"
        "target_link_libraries(saxpy PRIVATE hip::host)\n")
    configure = run_build(["cmake", "-S", str(proj), "-B", str(proj / "build")], proj, root)
    assert configure.ok, configure.stdout + configure.stderr
    build = run_build(["cmake", "--build", str(proj / "build")], proj, root)
    assert build.ok, build.stdout + build.stderr
    assert (proj / "build" / "saxpy").is_file()
    cache = (proj / "build" / "CMakeCache.txt").read_text()
    assert str(root / "llvm" / "bin" / "clang++") in cache


@pytest.mark.toolchain("nvcc")
def test_hip_on_cuda_stand_in_compiles_a_hip_source(tmp_path: Path) -> None:
    root = hipcc_root("hip-on-cuda", tmp_path / "tc")
    (tmp_path / "k.hip").write_text(SAXPY)
    proc = subprocess.run([str(root / "bin" / "hipcc"), "--offload-arch=gfx950", "-munsafe-fp-atomics", "-O3",
                           "-c", "k.hip", "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True,
                          env=hipcc_env(root, os.environ), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.o").is_file()
