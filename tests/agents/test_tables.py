"""The CUDA -> HIP index: spot checks against hipify-torch and porter's table, built once."""

from __future__ import annotations

import importlib

import pytest

from porter.agents.translator import tables


def test_runtime_names_come_from_hipify_torch() -> None:
    m = tables.index().lookup("cudaMalloc")
    assert (m.hip, m.family, m.source, m.supported) == ("hipMalloc", "runtime", "hipify-torch", True)
    assert tables.index().lookup("cudaStream_t").hip == "hipStream_t"
    assert tables.index().lookup("CUdeviceptr").hip == "hipDeviceptr_t"


def test_library_families() -> None:
    ix = tables.index()
    assert (ix.lookup("cublasSgemm").hip, ix.lookup("cublasSgemm").family) == ("hipblasSgemm", "blas")
    assert ix.lookup("cublasLtMatmul").family == "blaslt"
    assert ix.lookup("curand_init").family == "rand"
    assert ix.namespaces["cub"].hip == "hipcub"


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
    assert tables.index.cache_info().misses == 1
    with pytest.raises(TypeError):
        tables.index().names["cudaMalloc"] = None  # type: ignore[index]


def test_engine_names_the_source() -> None:
    assert tables.ENGINE.startswith("hipify-torch")
    assert tables.index().counts["hipify-torch"] > 3000 and tables.index().counts["porter"] > 0


def test_without_torch_the_shipped_snapshot_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_torch(name: str, package: str | None = None):
        if name.startswith("torch"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(tables.importlib, "import_module", no_torch)
    frozen = tables.index.__wrapped__()
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
