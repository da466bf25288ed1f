"""porter.verify.driver: golden driver text, and real nvcc builds of the generated drivers."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.toolchains import ToolchainMissing
from porter.verify.driver import TemplateMismatch, render_driver, render_strict
from porter.verify.executors import CudaExecutor, HipOnCudaExecutor, hip_on_cuda_dir
from porter.verify.spec import KernelSpec, load_spec

ROOT = Path(__file__).parents[2]
VERIFY = ROOT / "fixtures" / "verify"
GOLDEN = VERIFY / "golden"
SAXPY = load_spec(VERIFY / "saxpy")


def _golden_name(k: KernelSpec) -> str:
    return k.name.split("<")[0] + ".driver.cu"


@pytest.mark.parametrize("kernel", SAXPY.kernels, ids=lambda k: k.name)
def test_driver_matches_golden(kernel: KernelSpec, request: pytest.FixtureRequest) -> None:
    text = render_driver(kernel)
    golden = GOLDEN / _golden_name(kernel)
    if request.config.getoption("--update-goldens"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), f"driver differs from {golden}; review, then --update-goldens"


def test_driver_is_deterministic_and_numeric() -> None:
    k = SAXPY.kernels[0]
    text = render_driver(k)
    assert text == render_driver(k.model_copy())
    assert "dim3 grid(391, 1, 1);" in text and "dim3 block(256, 1, 1);" in text
    assert '  {"y", F32, INOUT, NORMAL, 0.0, 2.0, 1, {100000}},' in text
    assert "const int32_t arg_n = static_cast<int32_t>(100000);" in text
    assert "const float arg_a = static_cast<float>(2.5);" in text
    assert "saxpy<<<grid, block, 0>>>(arg_n, arg_a, static_cast<float*>(dev[0]), static_cast<float*>(dev[1]));" in text
    assert "#define PORTER_NEEDS_F16 0" in text and "$" not in text


def test_strict_template() -> None:
    assert render_strict("a ${x} b", {"x": "1"}) == "a 1 b"
    with pytest.raises(TemplateMismatch, match=r"\['y'\] unset"):
        render_strict("${x}${y}", {"x": "1"})
    with pytest.raises(TemplateMismatch, match=r"\['z'\] unused"):
        render_strict("${x}", {"x": "1", "z": "2"})


def _build(executor, project: Path, kernel: KernelSpec, tmp_path: Path) -> None:
    driver = tmp_path / f"porter_driver{executor.driver_suffix}"
    driver.write_text(render_driver(kernel))
    build = executor.build(project, driver, tmp_path / "build")
    assert build.ok, build.stderr[-3000:]
    assert Path(build.artifacts[0]).stat().st_size > 0


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("kernel", SAXPY.kernels, ids=lambda k: k.name)
def test_nvcc_builds_cuda_driver(kernel: KernelSpec, tmp_path: Path) -> None:
    _build(CudaExecutor(), VERIFY / "saxpy", kernel, tmp_path)


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("project", ["reduce", "matmul_tiled"])
def test_nvcc_builds_driver_for_fixture_projects(project: str, tmp_path: Path) -> None:
    """The team's fixture originals; reduce.cu has its own main, which the driver renames away."""
    (kernel,) = load_spec(VERIFY / "specs" / f"{project}.toml").kernels
    _build(CudaExecutor(), ROOT / "fixtures" / project, kernel, tmp_path)


def _hip_on_cuda_ready() -> bool:
    try:
        return (hip_on_cuda_dir() / "hip" / "hip_runtime.h").is_file()
    except ToolchainMissing:
        return False


@pytest.mark.toolchain("nvcc")
@pytest.mark.skipif(not _hip_on_cuda_ready(), reason="shims/hip_on_cuda/hip/hip_runtime.h not there yet")
@pytest.mark.parametrize("kernel", SAXPY.kernels[:2], ids=lambda k: k.name)
def test_nvcc_builds_hip_driver_on_hip_on_cuda(kernel: KernelSpec, tmp_path: Path) -> None:
    """The HIP form of the driver against a HIP port (the golden reduce port and the saxpy fixture)."""
    _build(HipOnCudaExecutor(), VERIFY / "saxpy", kernel, tmp_path)


@pytest.mark.toolchain("nvcc")
@pytest.mark.skipif(not _hip_on_cuda_ready(), reason="shims/hip_on_cuda/hip/hip_runtime.h not there yet")
def test_nvcc_builds_hip_driver_for_golden_reduce_port(tmp_path: Path) -> None:
    (kernel,) = load_spec(VERIFY / "specs" / "reduce.toml").kernels
    _build(HipOnCudaExecutor(), ROOT / "fixtures" / "golden" / "reduce", kernel, tmp_path)
