"""The CUDA -> HIP index: spot checks against hipify-torch and porter's table, built once."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from porter.agents.translator import tables


def test_runtime_names_come_from_hipify() -> None:
    m = tables.index().lookup("cudaMalloc")
    assert (m.hip, m.family, m.source, m.supported) == ("hipMalloc", "runtime", "hipify", True)
    assert tables.index().lookup("cudaStream_t").hip == "hipStream_t"
    assert tables.index().lookup("CUdeviceptr").hip == "hipDeviceptr_t"


def test_library_families() -> None:
    ix = tables.index()
    assert (ix.lookup("cublasSgemm").hip, ix.lookup("cublasSgemm").family) == ("hipblasSgemm", "blas")
    assert ix.lookup("cublasLtMatmul").family == "blaslt"
    assert ix.lookup("curand_init").family == "rand"
    assert ix.namespaces["cub"].hip == "hipcub"


def test_hipify_comes_before_torch() -> None:
    ix = tables.index()
    # torch's table names hipMemcpy2D__, which HIP does not declare; HIPIFY names the real API
    assert ix.lookup("cuMemcpy2D").hip == "hipMemcpyParam2D"
    assert ix.lookup("cuMemcpy2D").source == "hipify"
    # a name only torch has still comes from torch
    assert any(m.source == "hipify-torch" for m in ix.names.values())


def test_hipify_unsupported_names_are_marked() -> None:
    m = tables.index().lookup("cuTensorMapEncodeTiled")
    assert m is not None and not m.supported and m.source == "hipify"


def test_hipify_library_headers_use_rocm_layout() -> None:
    ix = tables.index()
    assert ix.header("cusolverDn.h").hip == "hipsolver/hipsolver.h"
    assert ix.header("cusparse.h").hip == "hipsparse/hipsparse.h"
    assert ix.header("device_launch_parameters.h").hip == ""  # removed: HIP needs nothing for it


def test_direct_rocm_libraries_follow_the_choices() -> None:
    roc = tables.index(tables.Choices(blas="rocblas", sparse="rocsparse", solver="rocsolver", rand="rocrand",
                                      dnn="miopen"))
    assert roc.lookup("cublasSgemm").hip == "rocblas_sgemm" and roc.lookup("cublasSgemm").source == "hipify-roc"
    assert tables.library(roc.lookup("cublasSgemm")).rocm == "rocBLAS"
    assert roc.lookup("cusparseCreate").hip == "rocsparse_create_handle"
    assert roc.lookup("curandCreateGenerator").hip == "rocrand_create_generator"
    assert roc.lookup("cudnnCreate").hip == "miopenCreate"
    assert roc.header("cublas_v2.h").hip == "rocblas/rocblas.h"
    assert roc.header("cudnn.h").hip == "miopen/miopen.h"
    # rocBLAS takes its own complex type; __half stays HIP's (rocblas_half has no device arithmetic)
    assert roc.lookup("cuComplex").hip == "rocblas_float_complex"
    assert roc.lookup("__half").hip == "__half"
    # the default keeps the hip* wrappers and reports cuDNN
    hip = tables.index()
    assert hip.lookup("cublasSgemm").hip == "hipblasSgemm" and hip.lookup("cudnnCreate") is None
    assert tables.library(hip.lookup("cublasSgemm")).rocm == "hipBLAS"


def test_hipify_snapshot_records_its_source() -> None:
    data = tables.hipify_tables()
    assert data["engine"].startswith("HIPIFY 6.3.0 (ROCm/HIPIFY@014177bc")
    assert len(data["hip"]) > 4000 and len(data["roc"]) > 2000


def test_porter_fills_what_hipify_torch_lacks() -> None:
    m = tables.index().lookup("__nv_fp8_e4m3")
    assert (m.hip, m.source) == ("__hip_fp8_e4m3", "porter")
    assert tables.index().header("cuda_fp8.h").hip == "hip/hip_fp8.h"


def test_nccl_keeps_its_names_and_moves_its_header() -> None:
    m = tables.index().lookup("ncclAllReduce")
    assert m.hip == "ncclAllReduce" and m.family == "nccl" and not m.renames
    assert tables.index().header("nccl.h").hip == "rccl/rccl.h"


def test_pytorch_entries_only_for_extensions() -> None:
    ix = tables.index()
    assert ix.lookup("CUDA_VERSION") is None
    assert ix.lookup("CUDA_VERSION", extension=True).hip == "TORCH_HIP_VERSION"
    assert ix.header("ATen/cuda/CUDAContext.h") is None
    assert ix.header("ATen/cuda/CUDAContext.h", extension=True).hip == "ATen/hip/HIPContext.h"
    assert ix.header("c10/cuda/CUDAGuard.h", extension=True).hip == "c10/hip/HIPGuard.h"


def test_cudnn_is_never_renamed() -> None:
    ix = tables.index()
    assert ix.lookup("cudnnCreate") is None and ix.lookup("cudnnCreate", extension=True) is None


def test_index_is_built_once_and_read_only() -> None:
    assert tables.index() is tables.index()
    assert tables.index() is tables.index(tables.DEFAULT_CHOICES)
    with pytest.raises(TypeError):
        tables.index().names["cudaMalloc"] = None  # type: ignore[index]


def test_engine_names_the_source() -> None:
    assert tables.ENGINE.startswith("HIPIFY 6.3.0") and "hipify-torch" in tables.ENGINE
    counts = tables.index().counts
    assert counts["hipify"] > 4000 and counts["hipify-torch"] > 300 and counts["porter"] > 0


def test_without_torch_the_shipped_snapshot_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_torch(name: str, package: str | None = None):
        if name.startswith("torch"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    real_find = importlib.util.find_spec

    def no_torch_spec(name: str, package: str | None = None):
        return None if name.startswith("torch") else real_find(name, package)

    monkeypatch.setattr(tables.importlib, "import_module", no_torch)
    # torch's tables may be on disk from an earlier run (porter.diskcache): torch must be unfindable too
    monkeypatch.setattr(tables.importlib.util, "find_spec", no_torch_spec)
    frozen = tables._index.__wrapped__(tables.DEFAULT_CHOICES)
    assert "snapshot shipped with porter" in frozen.engine
    assert frozen.lookup("cudaMalloc").hip == "hipMalloc"
    assert frozen.lookup("__nv_fp8_e4m3").hip == "__hip_fp8_e4m3"
    assert frozen.counts == tables.index().counts


def test_snapshot_matches_the_installed_torch() -> None:
    """The shipped snapshot is the installed torch's tables; regenerate it when torch moves."""
    import json

    entries, engine = tables.torch_entries()
    frozen = json.loads(tables.SNAPSHOT.read_text())
    assert frozen["engine"] == engine, "run: python -m porter.agents.translator.tables"
    assert [tuple(e) for e in frozen["entries"]] == entries
