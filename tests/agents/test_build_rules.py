"""The BLD rules together on realistic build files: one coherent port, nothing fought over, nothing
touched in comments or messages, and a second run with nothing left to fix."""

from __future__ import annotations

import pytest

from porter import rules
from porter.agents.translator.buildfiles import make_lines
from porter.rules import RuleContext, TextFile, run_rules
from porter.scan import build_lang

CMAKE = """\
cmake_minimum_required(VERSION 3.18)
project(flash_attn LANGUAGES CXX CUDA)

set(CMAKE_CUDA_STANDARD 17)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)
endif()
find_package(CUDAToolkit REQUIRED)
# nvcc -lineinfo is handy with nsight: set(CMAKE_CUDA_FLAGS "-lineinfo")
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr --use_fast_math")

add_library(attn STATIC src/fwd.cu src/bwd.cu)
target_compile_options(attn PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
set_target_properties(attn PROPERTIES CUDA_ARCHITECTURES "90" CUDA_SEPARABLE_COMPILATION ON)
target_link_libraries(attn PUBLIC CUDA::cudart CUDA::cublas)
message(STATUS "CUDA flags: ${CMAKE_CUDA_FLAGS} (nvcc --use_fast_math, CUDA::cublas)")
"""

CMAKE_PORTED = """\
cmake_minimum_required(VERSION 3.21)
project(flash_attn LANGUAGES CXX HIP)

set(CMAKE_HIP_STANDARD 17)
if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
  set(CMAKE_HIP_ARCHITECTURES gfx950 gfx942)
endif()
find_package(hip REQUIRED)
find_package(hipblas REQUIRED)
# nvcc -lineinfo is handy with nsight: set(CMAKE_CUDA_FLAGS "-lineinfo")
set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -ffast-math")

add_library(attn STATIC src/fwd.cu src/bwd.cu)
set_source_files_properties(src/fwd.cu src/bwd.cu PROPERTIES LANGUAGE HIP)
target_compile_options(attn PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>)
set_target_properties(attn PROPERTIES HIP_ARCHITECTURES "gfx950")
target_compile_options(attn PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
target_link_options(attn PRIVATE "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")
target_link_libraries(attn PUBLIC hip::host roc::hipblas)
message(STATUS "CUDA flags: ${CMAKE_HIP_FLAGS} (nvcc --use_fast_math, CUDA::cublas)")
"""

MAKEFILE = """\
# Makefile for the reduction samples; needs nvcc from CUDA 12.
CUDA_PATH ?= /usr/local/cuda
NVCC      ?= $(CUDA_PATH)/bin/nvcc
# NVCC    ?= nvcc -arch=sm_70 -lineinfo
NVCCFLAGS := -O3 -std=c++17 -arch=sm_90 -lineinfo --expt-relaxed-constexpr \\
             -Xcompiler -fopenmp # keep -lineinfo and openmp for the host reference
LDFLAGS   := -L$(CUDA_PATH)/lib64 -lcudart -lcublas -lgomp

reduce: reduce.o main.o
\t$(NVCC) $(NVCCFLAGS) -o $@ $^ $(LDFLAGS)

%.o: %.cu
\t$(NVCC) $(NVCCFLAGS) -I$(CUDA_PATH)/include -c $< -o $@
\t@echo "compiled $< with nvcc -arch=sm_90 --use_fast_math"
$(info building with nvcc -lineinfo from $(CUDA_PATH))
"""

MAKEFILE_PORTED = """\
# Makefile for the reduction samples; needs nvcc from CUDA 12.
ROCM_PATH ?= /opt/rocm
NVCC      ?= $(ROCM_PATH)/bin/hipcc
# NVCC    ?= nvcc -arch=sm_70 -lineinfo
NVCCFLAGS := -O3 -std=c++17 --offload-arch=gfx950 -gline-tables-only \\
             -fopenmp # keep -lineinfo and openmp for the host reference
LDFLAGS   := -L$(ROCM_PATH)/lib -lamdhip64 -lhipblas -lgomp

reduce: reduce.o main.o
\t$(NVCC) $(NVCCFLAGS) -o $@ $^ $(LDFLAGS)

%.o: %.cu
\t$(NVCC) $(NVCCFLAGS) -I$(ROCM_PATH)/include -c $< -o $@
\t@echo "compiled $< with nvcc -arch=sm_90 --use_fast_math"
$(info building with nvcc -lineinfo from $(ROCM_PATH))
"""

SETUP_PY = """\
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

# nvcc wants "--use_fast_math"
if CUDA_HOME is None:
    raise RuntimeError("nvcc not found: set CUDA_HOME (--use_fast_math needs it)")

setup(
    name="rmsnorm",
    ext_modules=[
        CUDAExtension(
            "rmsnorm_cuda",
            ["rmsnorm.cpp", "rmsnorm_kernel.cu"],
            extra_compile_args={
                "cxx": ["-O3"],
                "nvcc": ["-O3", "--use_fast_math", "-lineinfo", "-U__CUDA_NO_HALF_OPERATORS__",
                         "-gencode=arch=compute_90,code=sm_90"],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
"""

SETUP_PY_PORTED = """\
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME, BuildExtension, CUDAExtension

# nvcc wants "--use_fast_math"
if CUDA_HOME is None and ROCM_HOME is None:
    raise RuntimeError("nvcc not found: set CUDA_HOME (--use_fast_math needs it)")

setup(
    name="rmsnorm",
    ext_modules=[
        CUDAExtension(
            "rmsnorm_cuda",
            ["rmsnorm.cpp", "rmsnorm_kernel.cu"],
            extra_compile_args={
                "cxx": ["-O3"],
                "nvcc": ["-O3", "-ffast-math", "-gline-tables-only", "-U__HIP_NO_HALF_OPERATORS__",
                         "--offload-arch=gfx950"],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
"""


def _port(path: str, text: str) -> tuple[str, rules.RunResult]:
    lang = build_lang(path)
    assert lang is not None
    unit = TextFile(path, text.encode(), lang)
    bld = [r for r in rules.rules_for("translator", lang) if r.id.startswith("BLD")]
    assert bld, f"no BLD rules for {lang}"
    result = run_rules(unit, bld, RuleContext(), agent="translator")
    return (result.patch.apply_to(unit.data).decode() if result.patch else text), result


@pytest.mark.parametrize(("path", "before", "after"), [
    ("CMakeLists.txt", CMAKE, CMAKE_PORTED),
    ("Makefile", MAKEFILE, MAKEFILE_PORTED),
    ("setup.py", SETUP_PY, SETUP_PY_PORTED),
])
def test_all_bld_rules_port_a_realistic_file(path: str, before: str, after: str) -> None:
    ported, result = _port(path, before)
    assert ported == after
    # every fix the rules offered landed: no two rules fought over the same bytes
    assert all(f.fixed for f in result.findings if f.fixable), [f.message for f in result.findings if not f.fixed]
    assert all(f.message for f in result.findings)
    again, second = _port(path, ported)
    assert again == ported
    assert not [f for f in second.findings if f.fixable]


def test_ported_setup_py_is_still_python() -> None:
    compile(_port("setup.py", SETUP_PY)[0], "setup.py", "exec")


def test_commented_nvcc_line_is_not_touched() -> None:
    text = "# nvcc -arch=sm_80 -lineinfo -lcudart /usr/local/cuda\n\t# not a recipe: nvcc\n"
    ported, result = _port("build.mk", "all:\n" + text)
    assert ported.endswith(text)


def test_make_comment_after_assignment_is_not_a_word() -> None:
    # tree-sitter-make 1.1 keeps "# ..." inside the value; GNU make does not
    (line,) = [ln for ln in make_lines(b"FLAGS := -lineinfo # -G here\n") if ln.kind == "assign"]
    assert [w.text for w in line.words] == ["-lineinfo"]


def test_cmake_comment_and_message_are_not_touched() -> None:
    text = '# project(x LANGUAGES CUDA)\nmessage(STATUS "uses CUDA::cublas and --use_fast_math")\n'
    ported, result = _port("cmake/deps.cmake", text)
    assert ported == text
    assert not result.findings


def test_setup_py_nvcc_check_in_a_string_is_not_a_check() -> None:
    text = 'from torch.utils.cpp_extension import CUDA_HOME\nprint("CUDA_HOME is None on ROCm")\n'
    ported, _ = _port("setup.py", text)
    assert ported == text


@pytest.mark.parametrize(("path", "lang"), [
    ("CMakeLists.txt", "cmake"), ("cmake/FindNCCL.cmake", "cmake"), ("Makefile", "makefile"),
    ("src/makefile", "makefile"), ("GNUmakefile", "makefile"), ("rules.mk", "makefile"),
    ("setup.py", "setup_py"), ("pkg/setup.py", "setup_py"),
    ("kernel.cu", None), ("setup.cfg", None), ("CMakeCache.txt", None), ("Makefile.am", None),
])
def test_build_lang(path: str, lang: str | None) -> None:
    assert build_lang(path) == lang


def test_make_install_root_from_another_variable_honours_the_environment() -> None:
    # Rodinia's dwt2d: CUDA_INSTALL_PATH = $(CUDA_DIR) became ROCM_PATH = /opt/rocm, a plain
    # assignment that overrode $ROCM_PATH (the hipcc stand-in's root, or a ROCm elsewhere)
    ported, _ = _port("Makefile", "CUDA_INSTALL_PATH = $(CUDA_DIR)\nNVCC = $(CUDA_INSTALL_PATH)/bin/nvcc\n"
                                  "app: main.cu\n\t$(NVCC) main.cu -o app\n")
    assert ported.startswith("ROCM_PATH ?= /opt/rocm\nNVCC = $(ROCM_PATH)/bin/hipcc\n")
