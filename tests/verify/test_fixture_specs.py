"""The fixture projects' verify specs: each loads, and each spec'd kernel's driver compiles.

Every fixture project except torch_ext (a PyTorch extension: its kernel runs through torch, with
no spec, and is reported "not exercised") has a porter.toml. For each `[[verify.kernel]]` the
generated driver must build with nvcc as CUDA against the original unit (the cuda executor) and,
where porter's hip_on_cuda headers can express the port, as HIP against the golden port (the
hip-on-cuda executor). Known hip-on-cuda gaps are strict xfails, so a fix shows up as XPASS.
Compiles only: nothing here needs a GPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.verify.driver import render_driver
from porter.verify.executors import CudaExecutor, Executor, HipOnCudaExecutor
from porter.verify.spec import KernelSpec, load_spec

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
GOLDEN = FIXTURES / "golden"
NOT_PROJECTS = {"golden", "rules", "reports", "toolchains", "hip_on_cuda", "verify"}  # as tests/engine/test_port.py
PROJECTS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in NOT_PROJECTS)
NO_SPEC = {"torch_ext"}  # kernels reached through torch: not exercised by a driver
# Projects whose porter.toml has no kernel spec, and why (the file's comment says more).
NO_KERNEL_SPEC: dict[str, str] = {}

# Kernels whose HIP driver does not build against the golden port with the hip_on_cuda headers.
HIP_ON_CUDA_GAPS = {
}

SPEC_PROJECTS = [p for p in PROJECTS if p not in NO_SPEC]
KERNELS = [(p, k.name) for p in SPEC_PROJECTS for k in load_spec(FIXTURES / p).kernels]


def _kernel(project: str, name: str) -> KernelSpec:
    spec = load_spec(FIXTURES / project)
    return next(k for k in spec.kernels if k.name == name)


def _build(executor: Executor, unit_dir: Path, k: KernelSpec, tmp_path: Path) -> None:
    driver = tmp_path / f"porter_driver{executor.driver_suffix}"
    driver.write_text(render_driver(k), encoding="utf-8")
    result = executor.build(unit_dir, driver, tmp_path)
    assert result.ok, f"{executor.name} build of {k.name} against {unit_dir} failed:\n{result.stderr[-3000:]}"


def test_every_project_but_torch_ext_has_a_spec() -> None:
    for project in PROJECTS:
        has = (FIXTURES / project / "porter.toml").is_file()
        assert has == (project not in NO_SPEC), f"{project}: porter.toml {'missing' if not has else 'unexpected'}"


@pytest.mark.parametrize("project", SPEC_PROJECTS)
def test_spec_loads_and_names_kernels_of_the_unit(project: str) -> None:
    spec = load_spec(FIXTURES / project)
    assert spec.source.endswith("porter.toml")
    if project in NO_KERNEL_SPEC:
        assert not spec.kernels, NO_KERNEL_SPEC[project]
        return
    if project.startswith("triton_"):
        assert spec.triton and not spec.kernels, f"{project}: a Triton project is checked by [[verify.triton]]"
        return  # tests/verify/test_triton_units.py runs them
    assert spec.kernels, f"{project}: no [[verify.kernel]]"
    for k in spec.kernels:
        unit = FIXTURES / project / k.unit
        assert unit.is_file(), f"{project}: {k.unit} does not exist"
        assert f" {k.name}(" in unit.read_text() or f"\n{k.name}(" in unit.read_text(), \
            f"{project}: {k.name} is not defined in {k.unit}"
        assert (GOLDEN / project / k.unit).is_file(), f"{project}: the golden port has no {k.unit}"
        render_driver(k)  # every expression evaluates; the template fills


def test_the_seeded_project_spec_compares_both_outputs_exactly() -> None:
    (k,) = load_spec(FIXTURES / "wave_seeded").kernels
    assert k.tolerance == "exact" and set(k.output_names) == {"sums", "positives"}
    golden = (GOLDEN / "wave_seeded" / "seeded.cu").read_text()
    # the port reduces and counts over the whole 64-lane wavefront
    assert "warpSize / 2" in golden and "unsigned long long votes" in golden and "__popcll(votes)" in golden
    assert "& 31" not in golden


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize(("project", "kernel"), KERNELS, ids=[f"{p}-{k}" for p, k in KERNELS])
def test_cuda_driver_builds_against_the_original(project: str, kernel: str, tmp_path: Path) -> None:
    _build(CudaExecutor(), FIXTURES / project, _kernel(project, kernel), tmp_path)


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize(("project", "kernel"), [
    pytest.param(p, k, id=f"{p}-{k}", marks=pytest.mark.xfail(reason=HIP_ON_CUDA_GAPS[(p, k)], strict=True))
    if (p, k) in HIP_ON_CUDA_GAPS else pytest.param(p, k, id=f"{p}-{k}")
    for p, k in KERNELS])
def test_hip_driver_builds_against_the_golden_port(project: str, kernel: str, tmp_path: Path) -> None:
    _build(HipOnCudaExecutor(), GOLDEN / project, _kernel(project, kernel), tmp_path)
