"""The project's symbol table: names a tree defines are never reported as CUDA names, and keep one spelling."""

from __future__ import annotations

from pathlib import Path

from porter.run import port
from porter.state import PortOptions
from porter.symbols import defined_names

COMMON_H = """#pragma once
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
// llm.c-style helpers: project macros and functions spelled like CUDA's
void cudaCheck_(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) { printf("[CUDA ERROR] %s:%d %s\\n", file, line, cudaGetErrorString(error)); }
}
#define cudaCheck(err) (cudaCheck_(err, __FILE__, __LINE__))
inline void cublasCheck(cublasStatus_t status, const char *file, int line) {}
#define CUDART_PI_F 3.14159265f
typedef struct { float* data; int n; } cudaTensor_t;
"""

KERNEL_CU = """#include "common.h"
__global__ void scale(float* x) { x[threadIdx.x] *= CUDART_PI_F; }
int main() {
  cudaTensor_t t;
  cudaCheck(cudaMalloc(&t.data, 256 * sizeof(float)));
  scale<<<1, 256>>>(t.data);
  cudaCheck(cudaDeviceSynchronize());
  cudaCheck(cudaFree(t.data));
  return 0;
}
"""


def test_defined_names_find_macros_functions_types_and_variables() -> None:
    names = defined_names(COMMON_H.encode())
    assert {"cudaCheck", "cudaCheck_", "cublasCheck", "CUDART_PI_F", "cudaTensor_t"} <= names
    # a use is not a definition
    assert "cudaGetErrorString" not in names
    assert "cudaFooBar" not in defined_names(b"int f(int x) {\n  return cudaFooBar(x);\n}\n  cudaFooBar(1);\n")


def _port(tmp_path: Path, files: dict[str, str]):
    src = tmp_path / "src"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    out = tmp_path / "out"
    state = port(src, out, PortOptions(verify=False))
    return state, out


def test_a_project_cudacheck_macro_is_not_a_hip005_error(tmp_path: Path) -> None:
    state, out = _port(tmp_path, {"common.h": COMMON_H, "train.cu": KERNEL_CU, "sub/dir/other.cu": KERNEL_CU.replace(
        '"common.h"', '"../../common.h"')})
    reported = [f for f in state.findings if f.rule == "HIP005"]
    assert not reported, [f.message for f in reported]
    ported = (out / "train.cu").read_text()
    assert "cudaCheck(hipMalloc(&t.data" in ported and "cudaTensor_t t;" in ported


def test_a_project_name_with_a_cuda_prefix_is_spelled_alike_at_definition_and_use(tmp_path: Path) -> None:
    """A project macro the tables also map (CUDART_PI_F) is renamed in the header and in the kernel alike;
    one they do not map (cudaCheck) is kept in both."""
    _, out = _port(tmp_path, {"common.h": COMMON_H, "train.cu": KERNEL_CU})
    header, unit = (out / "common.h").read_text(), (out / "train.cu").read_text()
    assert "#define HIP_PI_F 3.14159265f" in header and "x[threadIdx.x] *= HIP_PI_F;" in unit
    assert "#define cudaCheck(err) (cudaCheck_(err" in header and "cudaCheck(hipDeviceSynchronize())" in unit
    assert "CUDART_PI_F" not in header + unit


def test_an_undefined_cuda_looking_name_is_still_reported(tmp_path: Path) -> None:
    state, _ = _port(tmp_path, {"common.h": COMMON_H, "train.cu": KERNEL_CU + "void g() { cudaFooBar(0); }\n"})
    assert [f.message.split(":")[0] for f in state.findings if f.rule == "HIP005"] == ["cudaFooBar"]


def test_project_names_are_scanned_once_when_first_asked_and_pickle_either_way(monkeypatch) -> None:
    import pickle

    from porter import symbols

    calls = []
    real = symbols.project_names
    monkeypatch.setattr(symbols, "project_names", lambda files: calls.append(1) or real(files))
    names = symbols.ProjectNames([COMMON_H.encode(), KERNEL_CU.encode()])
    before = pickle.loads(pickle.dumps(names))  # not scanned yet: it carries the files
    assert calls == []
    assert "cudaCheck" in names and "cudaMalloc" not in names and "cublasCheck" in names
    assert "CUDART_PI_F" in before and "cudaMalloc" not in before
    after = pickle.loads(pickle.dumps(names))  # scanned: it carries the names
    assert set(after) == set(names) == set(before) and calls == [1, 1]
    assert "cudaTensor_t" in after and calls == [1, 1]


def test_a_run_whose_cuda_looking_names_each_file_defines_never_scans_the_project(monkeypatch) -> None:
    from porter import symbols
    from porter.rules import RuleContext, run_on_files
    from porter.state import FileKind, FileRecord

    own = b'#include <cuda_runtime.h>\n#define CUDA_CHECK(x) x\nint main() { CUDA_CHECK(cudaDeviceSynchronize()); }\n'
    files = {"a.cu": own, "b.cu": own.replace(b"main", b"other")}
    monkeypatch.setattr(symbols, "project_names", lambda files: (_ for _ in ()).throw(AssertionError("scanned")))
    found, patches = run_on_files("translator", [FileRecord(path=p, kind=FileKind.cuda) for p in files],
                                  files.__getitem__, RuleContext())
    assert not [f for f in found if f.rule == "HIP005"] and len(patches) == 2
    # a name only another file defines does need the scan
    files["b.cu"] = b"#include <cuda_runtime.h>\nvoid f() { CUDA_CHECK(cudaFree(0)); }\n"
    monkeypatch.setattr(symbols, "project_names", lambda files: frozenset({"CUDA_CHECK"}))
    found, _ = run_on_files("translator", [FileRecord(path=p, kind=FileKind.cuda) for p in files],
                            files.__getitem__, RuleContext())
    assert not [f for f in found if f.rule == "HIP005"]
