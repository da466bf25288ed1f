"""The exit guard transform of hip-on-cuda (porter.toolchains.hoc_guard) and its use by the hipcc root."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from porter.toolchains import hoc_guard
from porter.toolchains.hipcc import guarded_command, hip_on_cuda_dir, hipcc_env, hipcc_root
from porter.toolchains.nvcc import find_nvcc

SOURCE = b"""#include <hip/hip_runtime.h>
__global__ void proto(int* p);
template <int K>
__global__ void loop(float* o) { o[0] = K; }
extern "C" __global__ void early(int* p) {
  if (p[threadIdx.x] < 0) return;
  p[threadIdx.x] = __shfl_xor(p[threadIdx.x], 32);
}
static __global__ void __launch_bounds__(256) bounded() {}
__device__ int helper(int x) { return x; }
#define MAKE(n) __global__ void n() {}
MAKE(from_macro)
"""

GUARD = (b"\n#ifdef PORTER_HOC_EXIT_GUARD\n::porter_hoc::KernelExit porter_hoc_exit_guard;\n#endif\n")

EXPECTED = (b'#line 1 "k.hip"\n'
            b"#include <hip/hip_runtime.h>\n"
            b"__global__ void proto(int* p);\n"
            b"template <int K>\n"
            b"__global__ void __maxnreg__(64) loop(float* o) {" + GUARD + b'#line 4 "k.hip"\n'
            b" o[0] = K; }\n"
            b'extern "C" __global__ void __maxnreg__(64) early(int* p) {' + GUARD + b'#line 5 "k.hip"\n'
            b"\n"
            b"  if (p[threadIdx.x] < 0) return;\n"
            b"  p[threadIdx.x] = __shfl_xor(p[threadIdx.x], 32);\n"
            b"}\n"
            b"static __global__ void __launch_bounds__(256) bounded() {" + GUARD + b'#line 9 "k.hip"\n'
            b"}\n"
            b"__device__ int helper(int x) { return x; }\n"
            b"#define MAKE(n) __global__ void n() {}\n"
            b"MAKE(from_macro)\n")


def test_every_kernel_definition_gets_the_guard_and_the_register_cap_of_hip_clangs_default_bound() -> None:
    result = hoc_guard.instrument(SOURCE, "k.hip")
    assert result.text == EXPECTED
    assert result.kernels == ["loop", "early", "bounded"]
    # the prototype and the __device__ function are not kernels with a body; the macro's kernel
    # is reported, with its line
    assert [(s.line, "macro" in s.reason) for s in result.skipped] == [(11, True)]
    assert "k.hip:11: not instrumented" in hoc_guard.report(result, "k.hip")


def test_a_file_without_kernels_is_left_byte_for_byte() -> None:
    text = b"#include <cstdio>\nint main() { return 0; }\n"
    assert hoc_guard.instrument(text, "m.cpp").text == text


def test_line_directives_give_the_original_line_to_every_line_after_an_insertion() -> None:
    out = hoc_guard.instrument(SOURCE, "k.hip").text.decode()
    # emulate the preprocessor's line counting over the output: each original line must come
    # out numbered as in SOURCE
    original = SOURCE.decode().splitlines()
    line, seen = 0, {}
    for raw in out.splitlines():
        m = re.fullmatch(r'#line (\d+) "k.hip"', raw)
        if m:
            line = int(m.group(1))
            continue
        if line:
            seen.setdefault(line, []).append(raw)
        line += 1 if line else 0
    for number, text in enumerate(original, start=1):
        if "__global__" in text and "{" in text and "MAKE" not in text and "#define" not in text:
            continue  # the line split by the insertion: its rest keeps the number (checked below)
        if text.strip():
            assert text in seen.get(number, []), (number, text)
    assert " o[0] = K; }" in seen[4]


@pytest.mark.toolchain("nvcc")
def test_an_instrumented_kernel_compiles_for_sm_90_and_marks_exits(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_bytes(hoc_guard.instrument(SOURCE, "k.hip").text)
    shims = hip_on_cuda_dir()
    proc = subprocess.run([str(find_nvcc()), "-std=c++17", "-arch=sm_90", "-I", str(shims), "--options-file",
                           str(shims / "nvcc.opts"), "-x", "cu", "-ptx", "k.hip", "-o", "k.ptx"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    ptx = (tmp_path / "k.ptx").read_text()
    entry = ptx[ptx.index(".entry early"):]
    entry = entry[:entry.index("\n}\n")]
    assert ".maxnreg 64" in entry  # what a 1024-thread block can have, as hip-clang's default bound
    bounded = ptx[ptx.index(".entry _Z7boundedv"):]
    assert ".maxntid 256" in bounded[:bounded.index("{")] and ".maxnreg" not in bounded[:bounded.index("{")]
    assert "atom.acq_rel.cta.shared.or.b32" in entry  # the lane's exit mark (the last lane learns it is last)
    assert "mbarrier.arrive_drop" in entry  # the last lane drops its warp's arrivals from the wave's barrier
    assert "atom.release.cta.shared.exch.b64" in entry  # the guard's entry
    assert "fence.sc" not in ptx  # no Dekker fence left in the arrival protocol


@pytest.mark.toolchain("nvcc")
def test_diagnostics_point_at_the_users_file_and_line(tmp_path: Path) -> None:
    bad = SOURCE.replace(b"  if (p[threadIdx.x] < 0) return;", b"  if (p[threadIdx.x] < 0) return undeclared_name;")
    (tmp_path / "k.hip").write_bytes(hoc_guard.instrument(bad, "k.hip").text)
    shims = hip_on_cuda_dir()
    proc = subprocess.run([str(find_nvcc()), "-std=c++17", "-arch=sm_90", "-I", str(shims), "--options-file",
                           str(shims / "nvcc.opts"), "-x", "cu", "-c", "k.hip", "-o", "k.o"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert re.search(r'k\.hip\(6\): error: identifier "undeclared_name" is undefined', proc.stderr), proc.stderr


def test_hipcc_compiles_a_guarded_copy_beside_the_source_and_keeps_the_object_name(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_bytes(SOURCE)
    (tmp_path / "host.cpp").write_text("int main() { return 0; }\n")
    cmd = ["/c/nvcc", "-arch=sm_90", "--options-file", "/hoc/nvcc.opts", "-x", "cu", "-c",
           str(tmp_path / "k.hip")]
    out, made = guarded_command(cmd)
    assert len(made) == 1 and made[0].parent == tmp_path and made[0].name.startswith(".k.porter-hoc")
    assert out[:-2] == [*cmd[:-1], str(made[0])] and out[-2:] == ["-o", "k.o"]
    assert made[0].read_bytes() == hoc_guard.instrument(SOURCE, str(tmp_path / "k.hip")).text
    # a source without kernels, and dependency listing, are left as they are
    plain = ["/c/nvcc", "-c", str(tmp_path / "host.cpp"), "-o", "h.o"]
    assert guarded_command(plain) == (plain, [])
    assert guarded_command([*cmd, "-M"]) == ([*cmd, "-M"], [])


@pytest.mark.toolchain("nvcc")
def test_a_port_built_through_the_hipcc_root_gets_the_guard(tmp_path: Path) -> None:
    root = hipcc_root("hip-on-cuda", tmp_path / "tc")
    (tmp_path / "k.hip").write_bytes(SOURCE + b"int main() { loop<1><<<1, 64>>>(nullptr); return 0; }\n")
    env = hipcc_env(root, os.environ) | {"HIPCC_VERBOSE": "1"}
    proc = subprocess.run([str(root / "bin" / "hipcc"), "--offload-arch=gfx950", "-O2", "-ptx", "k.hip"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "k.hip:11: not instrumented (a kernel written by a macro" in proc.stderr
    ptx = (tmp_path / "k.ptx").read_text()  # the name nvcc gives k.hip's PTX
    assert ptx.count("atom.acq_rel.cta.shared.or.b32") >= 3  # loop<1>, early, bounded
    assert not [p for p in tmp_path.iterdir() if "porter-hoc" in p.name]  # the copy is removed


def test_the_verify_driver_includes_a_guarded_copy_of_the_unit(tmp_path: Path) -> None:
    from porter.verify.executors import guard_driver

    unit = tmp_path / "port"
    (unit / "src").mkdir(parents=True)
    (unit / "src" / "k.hip").write_bytes(SOURCE)
    (unit / "src" / "plain.h").write_text("inline int f() { return 1; }\n")
    driver = tmp_path / "work" / "driver.hip"
    driver.parent.mkdir()
    driver.write_text('#include <cstdio>\n#include "src/plain.h"\n#define main porter_unit_main\n'
                      '#include "src/k.hip"\n#undef main\n')
    guarded, made, notes = guard_driver(unit, driver)
    copy = next(p for p in made if p.parent == unit / "src")
    assert guarded == driver.with_name("driver.guarded.hip") and set(made) == {copy, guarded}
    assert guarded.read_text() == driver.read_text().replace('"src/k.hip"', f'"src/{copy.name}"')
    assert copy.read_bytes() == hoc_guard.instrument(SOURCE, str(unit / "src" / "k.hip")).text
    assert "k.hip:11: not instrumented" in notes
    # a driver whose unit defines no kernel is built as it is
    driver.write_text('#include "src/plain.h"\n')
    assert guard_driver(unit, driver) == (driver, [], "")


@pytest.mark.toolchain("nvcc")
def test_the_hip_on_cuda_executor_builds_the_guarded_unit_and_cleans_up(tmp_path: Path) -> None:
    from porter.verify.executors import HipOnCudaExecutor

    unit = tmp_path / "port"
    unit.mkdir()
    (unit / "k.hip").write_bytes(SOURCE.replace(b"extern \"C\" __global__ void early(int* p) {\n",
                                                b"extern \"C\" __global__ void early(int* p) {\n  undeclared();\n"))
    driver = tmp_path / "driver.hip"
    driver.write_text('#include "k.hip"\nint main() { return 0; }\n')
    result = HipOnCudaExecutor().build(unit, driver, tmp_path / "w")
    assert not result.ok
    # the compiler saw the guarded copy, and reports the error on the unit's own file and line
    assert re.search(r'k\.hip\(6\): error: identifier "undeclared" is undefined', result.stderr), result.stderr
    assert "not instrumented (a kernel written by a macro" in result.stderr
    assert sorted(p.name for p in unit.iterdir()) == ["k.hip"] and not (tmp_path / "driver.guarded.hip").exists()
