"""The hipcc stand-ins: argument translation (no compiler) and real builds through a Makefile and CMake."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter import toolchains
from porter.toolchains import hipcc
from porter.toolchains.hipcc import (
    HipccConfig,
    clang_command,
    cmake_clang_command,
    hip_on_cuda_dir,
    hipcc_env,
    hipcc_root,
    hipconfig,
    nvcc_command,
    run_build,
)
from porter.verify.executors import guard_driver

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


def test_every_amd_compile_defines_the_wave_size_from_hardware_data() -> None:
    from porter.toolchains.clang_hip import wavefront_define
    assert wavefront_define("gfx950") == "-D__AMDGCN_WAVEFRONT_SIZE=64"
    assert wavefront_define("gfx950") in clang_command(["-c", "k.cu"], GFX)
    assert wavefront_define("gfx950") in cmake_clang_command(["-c", "k.hip"], GFX)


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
  // __expf: HIP 5.2's ocml reads __oclc_daz_opt, which clang 22 no longer links (the stand-in's ISA library has it)
  if (i < n) y[i] = a * x[i] + sqrtf(y[i]) + __expf(y[i]) + warpSize;
}
void run(int n, float a, const float *x, float *y) { saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y); }
"""
MAIN = "void run(int, float, const float *, float *);\nint main() { run(0, 1.f, nullptr, nullptr); return 0; }\n"
# Host C++ that calls the runtime: the host compiler (CXX, g++) needs hip::host's include directory
# and __HIP_PLATFORM_AMD__ (hip_runtime.h stops with an #error without a platform).
MAIN_RUNTIME = ("#include <hip/hip_runtime.h>\nvoid run(int, float, const float *, float *);\n"
                "int main() { run(0, 1.f, nullptr, nullptr); return hipDeviceSynchronize() == hipSuccess ? 0 : 1; }\n")


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
    (proj / "main.cpp").write_text(MAIN_RUNTIME)
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
    # main.cpp went through the host C++ compiler, not HIP: hip::host gave it what it needs
    assert "CXX object CMakeFiles/saxpy.dir/main.cpp.o" in build.stdout


@pytest.mark.toolchain("clang")
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is installed by `make toolchains`")
def test_gfx950_stand_in_has_the_rocm_library_packages(tmp_path: Path) -> None:
    # find_package(hipfft) / (hipblas) give ROCm's targets over porter's header overlay: a port's
    # calls compile for gfx950; the libraries are absent, so only an object library is built
    root = hipcc_root("gfx950", tmp_path / "tc")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "fft.cpp").write_text(
        "#include <hipfft/hipfft.h>\n#include <hipblas/hipblas.h>\n"
        "int plan(hipfftHandle* p) { return hipfftPlan1d(p, 64, HIPFFT_R2C, 1); }\n"
        "int gemm(hipblasHandle_t h, const float* a, float* c) { const float one = 1.f;\n"
        "  return hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, 4, 4, 4, &one, a, 4, a, 4, &one, c, 4); }\n")
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(fft LANGUAGES CXX)\n"
        "find_package(hipfft REQUIRED)\nfind_package(hipblas REQUIRED)\n"
        "add_library(fft OBJECT fft.cpp)\ntarget_link_libraries(fft PRIVATE hip::hipfft roc::hipblas)\n")
    configure = run_build(["cmake", "-S", str(proj), "-B", str(proj / "build")], proj, root)
    assert configure.ok, configure.stdout + configure.stderr
    build = run_build(["cmake", "--build", str(proj / "build")], proj, root)
    assert build.ok, build.stdout + build.stderr


CG_UNIT = """#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void count_%s(int* out) { cg::coalesced_group g = cg::coalesced_threads(); out[g.thread_rank()] = g.size(); }
"""


@pytest.mark.toolchain("clang")
def test_gfx950_stand_in_links_cooperative_groups_units_as_relocatable_device_code(tmp_path: Path) -> None:
    # HIP 5.2 defines coalesced_group::masked_bit_count out of line in a header; with -fgpu-rdc
    # (CMake's separable compilation) two such units collided at the device link until the
    # overlay made it inline, as ROCm 6.x has it
    root = hipcc_root("gfx950", tmp_path / "tc")
    proj = tmp_path / "proj"
    proj.mkdir()
    for name in ("a", "b"):
        (proj / f"{name}.hip").write_text(CG_UNIT % name)
    (proj / "main.cpp").write_text("int main() { return 0; }\n")
    (proj / "Makefile").write_text("app: a.o b.o main.cpp\n\thipcc -fgpu-rdc $^ -o $@\n"
                                   "%.o: %.hip\n\thipcc -fgpu-rdc -c $< -o $@\n")
    build = run_build(["make"], proj, root)
    assert build.ok, build.stdout + build.stderr
    assert (proj / "app").is_file()


@pytest.mark.toolchain("nvcc")
def test_hip_on_cuda_stand_in_compiles_a_hip_source(tmp_path: Path) -> None:
    root = hipcc_root("hip-on-cuda", tmp_path / "tc")
    (tmp_path / "k.hip").write_text(SAXPY)
    proc = subprocess.run([str(root / "bin" / "hipcc"), "--offload-arch=gfx950", "-munsafe-fp-atomics", "-O3",
                           "-c", "k.hip", "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True,
                          env=hipcc_env(root, os.environ), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.o").is_file()


@pytest.mark.toolchain("nvcc")
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is installed by `make toolchains`")
def test_hip_on_cuda_root_builds_a_ported_cmake_project_with_nvcc(tmp_path: Path) -> None:
    # the port's own CMakeLists.txt (project(... HIP), find_package(hip), AMD HIP_ARCHITECTURES)
    # builds for the NVIDIA GPU: CMake's HIP language is the root's hipcc over nvcc; a C++ source
    # of a target linking hip::host that includes a hip/ header compiles as HIP too (the
    # hip_on_cuda headers are nvcc-only), other C++ stays with the host compiler
    root = hipcc_root("hip-on-cuda", tmp_path / "tc")
    assert (root / "lib" / "cmake" / "hip" / "hip-config.cmake").is_file()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "saxpy.cu").write_text(SAXPY)
    (proj / "main.cpp").write_text(MAIN_RUNTIME)
    # CUDA's headers declare a device `umin`: this file would not compile as HIP on nvcc
    (proj / "util.cpp").write_text("unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }\n")
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(saxpy LANGUAGES CXX HIP)\nfind_package(hip REQUIRED)\n"
        "set(CMAKE_HIP_ARCHITECTURES gfx950 gfx942)\nset(CMAKE_HIP_STANDARD 17)\n"
        "add_executable(saxpy main.cpp util.cpp saxpy.cu)\n"
        "set_source_files_properties(saxpy.cu PROPERTIES LANGUAGE HIP)\n"
        "target_compile_options(saxpy PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc -munsafe-fp-atomics>)\n"
        "target_link_options(saxpy PRIVATE \"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>\")\n"
        "target_link_libraries(saxpy PRIVATE hip::host)\n")
    env = hipcc_env(root, os.environ) | {"HIPCC_VERBOSE": "1"}
    configure = run_build(["cmake", "-S", str(proj), "-B", str(proj / "build")], proj, root, base_env=env)
    assert configure.ok, configure.stdout + configure.stderr
    assert "porter hip-on-cuda hipcc over nvcc" in configure.stdout
    build = run_build(["cmake", "--build", str(proj / "build"), "--verbose"], proj, root, base_env=env)
    assert build.ok, build.stdout + build.stderr
    binary = proj / "build" / "saxpy"
    assert binary.is_file()
    # every source went through nvcc with the hip_on_cuda headers, none with an AMD target
    nvcc_lines = [line for line in build.stderr.splitlines() if line.startswith("hipcc-cmd: ")]
    # (a source with kernels is compiled as its guarded copy beside it, .<stem>.porter-hoc<pid><ext>)
    compiled = {re.sub(r"^\.(.+)\.porter-hoc\d+(\.\w+)$", r"\1\2", Path(w).name)
                for line in nvcc_lines for w in line.split() if w.endswith((".cu", ".cpp"))}
    assert compiled == {"saxpy.cu", "main.cpp"}
    assert "Building CXX object CMakeFiles/saxpy.dir/util.cpp.o" in build.stdout
    assert all(f"-I {hip_on_cuda_dir()}" in line and "gfx9" not in line for line in nvcc_lines)
    assert "-rdc=true" in nvcc_lines[-1]  # -fgpu-rdc in nvcc's spelling, on the link too
    # the binary carries sm_90 device code (nvcc's default arch for this root)
    assert b"sm_90" in binary.read_bytes()


@pytest.mark.toolchain("nvcc")
def test_hip_on_cuda_root_links_host_objects_against_libamdhip64(tmp_path: Path) -> None:
    # a ported Makefile links with the C compiler and -lamdhip64 (Rodinia's form): on this root
    # that is the CUDA runtime plus libstdc++, which nvcc's objects need
    root = hipcc_root("hip-on-cuda", tmp_path / "tc")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "Makefile").write_text(
        "ROCM_PATH ?= /opt/rocm\nsaxpy: main.o saxpy.o\n\tgcc main.o saxpy.o -o $@ -L$(ROCM_PATH)/lib -lamdhip64 -lm\n"
        "saxpy.o: saxpy.cu\n\t$(ROCM_PATH)/bin/hipcc -O2 -c saxpy.cu\n"
        "main.o: main.c\n\tgcc -O2 -c main.c\n")
    (proj / "saxpy.cu").write_text(SAXPY.replace("void run(", 'extern "C" void run('))
    (proj / "main.c").write_text("void run(int, float, const float *, float *);\n"
                                 "int main(void) { run(0, 1.f, 0, 0); return 0; }\n")
    build = run_build(["make"], proj, root)
    assert build.ok, build.stdout + build.stderr
    linked = subprocess.run(["ldd", str(proj / "saxpy")], capture_output=True, text=True,
                            env=hipcc_env(root, os.environ), timeout=60).stdout
    assert "libcudart.so" in linked and "libstdc++" in linked


def test_hip_on_cuda_builds_without_the_exit_guard_where_tree_sitter_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A GPU machine may run porter's light modules only (no tree-sitter): the hip-on-cuda hipcc
    then compiles the sources as they are and says once that the exit guard is missing."""
    src = tmp_path / "k.hip"
    src.write_text("__global__ void k(int *p) { p[0] = 1; }\n")
    monkeypatch.setitem(sys.modules, "porter.toolchains.hoc_guard", None)  # import raises ImportError
    monkeypatch.delattr(toolchains, "hoc_guard", raising=False)  # as if it had never been imported
    monkeypatch.setattr(hipcc, "_GUARD_MISSING_SAID", False)
    cmd = ["nvcc", "-c", str(src), "-o", str(tmp_path / "k.o")]
    assert hipcc.guarded_command(cmd) == (cmd, [])
    assert hipcc.guarded_command(cmd) == (cmd, [])
    said = capsys.readouterr().err
    assert said.count("exit guard needs tree-sitter") == 1
    driver = tmp_path / "driver.cu"
    driver.write_text('#include "k.hip"\n')
    assert guard_driver(tmp_path, driver) == (driver, [], "")
