"""Project-wide pytest hooks: the `toolchain(name)` marker.

A test marked `@pytest.mark.toolchain("clang")` needs that compiler. Without it the test
is skipped on a developer machine, but fails when the environment variable CI is set:
CI installs every toolchain, so a skip there would hide a broken install.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from porter.toolchains import ToolchainMissing


def _finders() -> dict[str, Callable[[], Path]]:
    from porter.toolchains.clang_hip import find_clang
    from porter.toolchains.nvcc import find_cuobjdump, find_nvcc

    return {"clang": find_clang, "nvcc": find_nvcc, "cuobjdump": find_cuobjdump}


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers(name="toolchain"):
        if len(marker.args) != 1:
            raise pytest.UsageError(f"{item.nodeid}: toolchain marker takes one name, got {marker.args}")
        name = marker.args[0]
        finders = _finders()
        if name not in finders:
            raise pytest.UsageError(f"{item.nodeid}: unknown toolchain {name!r}; known: {sorted(finders)}")
        try:
            finders[name]()
        except ToolchainMissing as missing:
            if os.environ.get("CI"):
                pytest.fail(f"toolchain {name!r} missing in CI: {missing}", pytrace=False)
            pytest.skip(f"toolchain {name!r} missing: {missing}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite fixtures/golden/<project>/ from the current port (review the diff)")
    parser.addoption("--update-snapshots", action="store_true",
                     help="rewrite fixtures/reports/*.snap from the current renderers (review the diff)")


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray for the session (about 10 s to start): 2 CPUs, and the toolchain resources
    porter's compile tasks ask for. Without Ray installed the test is skipped, except in CI,
    where `make test` installs it (the [cluster] extra) and a skip would hide a broken install."""
    try:
        import ray
    except ModuleNotFoundError as missing:
        if os.environ.get("CI"):
            pytest.fail(f"ray missing in CI: {missing}", pytrace=False)
        pytest.skip(f"ray missing: {missing}")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # CI reaches no network: nothing to report to
    ray.init(num_cpus=2, resources={"clang22": 2, "nvcc": 2}, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _load_bench(name: str) -> ModuleType:
    """bench/NAME.py as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench_module() -> Callable[[str], ModuleType]:
    """Loads a bench script as a module: `bench_module("perfmodel_validate")` (a fresh module per call)."""
    return _load_bench
