"""Fixtures for the report tests: a hand-built PortState of a finished run, a small rule catalog,
and snapshot comparison against fixtures/reports/*.snap.

Snapshots are rewritten only with `--update-snapshots` (registered in tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from porter.rules import Rule
from porter.state import (
    Attempt,
    BuildResult,
    Edit,
    FileKind,
    FileRecord,
    Finding,
    KernelInfo,
    KernelResources,
    Location,
    Patch,
    PortState,
    Severity,
    UnitResult,
)

SNAPSHOTS = Path(__file__).resolve().parents[2] / "fixtures" / "reports"

CATALOG_DOCS = {
    "HIP001": ("translator", "info", "safe", "CUDA runtime API renamed to HIP.\n\nWhy: the HIP runtime mirrors "
               "the CUDA runtime under hip* names."),
    "WAVE001": ("microarch", "error", "safe", "warp size hard-coded as 32.\n\nWhy: CDNA wavefronts have 64 lanes;"
                "\n`threadIdx.x % 32` covers only half the wave on gfx9xx."),
    "WAVE002": ("microarch", "error", "none", "32-bit lane mask.\n\nWhy: ballots on gfx9xx return 64 bits."),
    "LDS001": ("microarch", "warning", "safe", "shared memory sized for 48 KiB.\n\nWhy: gfx950 has 160 KiB of LDS "
               "per CU."),
    "MFMA001": ("microarch", "info", "none", "tile fits an MFMA shape.\n\nWhy: v_mfma_f32_32x32x16_bf16 exists."),
    "PTX001": ("microarch", "error", "none", "inline PTX.\n\nWhy: PTX does not assemble for AMDGPU."),
    "BLD001": ("translator", "warning", "safe", "CUDA language in CMake.\n\nWhy: the port builds as HIP."),
}


def _noop(unit, ctx):
    return ()


@pytest.fixture
def catalog() -> dict[str, Rule]:
    """A fixed catalog, so the snapshots do not move when a rule's docstring is edited."""
    return {rid: Rule(id=rid, agent=agent, lang="cuda", severity=Severity(sev), fix=fix, func=_noop,
                      doc=f"{rid}: {doc}\n", module=f"tests.report.{rid.lower()}")
            for rid, (agent, sev, fix, doc) in CATALOG_DOCS.items()}




@pytest.fixture
def snapshot(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    update = request.config.getoption("--update-snapshots", default=False)

    def check(name: str, text: str) -> None:
        path = SNAPSHOTS / f"{name}.snap"
        if update:
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        assert path.exists(), f"{path} is missing: run `pytest --update-snapshots`"
        assert text == path.read_text(encoding="utf-8")

    return check


def _find(rule: str, sev: str, path: str, line: int, col: int, msg: str, *, fixable: bool, fixed: bool,
          snippet: str = "", detail: str = "", end: tuple[int, int] | None = None) -> Finding:
    end_line, end_col = end or (line, col + 2)
    return Finding(rule=rule, severity=Severity(sev), message=msg, snippet=snippet, agent="microarch",
                   location=Location(path=path, line=line, column=col, end_line=end_line, end_column=end_col),
                   fixable=fixable, fixed=fixed, detail=detail)


def _kernel(unit: str, name: str, **kw: int) -> KernelResources:
    base = dict(vgprs=32, agprs=0, sgprs=24, lds_bytes=0, scratch_bytes=0, vgpr_spill=0, sgpr_spill=0,
                occupancy=8, mfma_count=0)
    return KernelResources(kernel=name, unit=unit, arch="gfx950", **{**base, **kw})


def _build(rc: int, stderr: str = "") -> BuildResult:
    return BuildResult(toolchain="clang-hip", cmd=("clang++-22", "-x", "hip", "--offload-arch=gfx950"), rc=rc,
                       stderr=stderr, seconds=1.5)


@pytest.fixture
def port_state() -> PortState:
    """A finished run with one unit of each verdict and a finding of each severity."""
    files = [
        FileRecord(path="CMakeLists.txt", kind=FileKind.cmake, lines=20),
        FileRecord(path="data/table.bin", kind=FileKind.binary, note="binary: has NUL bytes"),
        FileRecord(path="ext/fused.cu", kind=FileKind.cuda, lines=80),
        FileRecord(path="include/legacy.h", kind=FileKind.text, note="not UTF-8 (byte 0xe9 at 120): copied unchanged"),
        FileRecord(path="kernels/bad.cu", kind=FileKind.cuda, lines=40),
        FileRecord(path="kernels/gemm.cu", kind=FileKind.cuda, lines=200),
        FileRecord(path="kernels/macro.cuh", kind=FileKind.cuda, lines=30, parsed=False),
        FileRecord(path="kernels/reduce.cu", kind=FileKind.cuda, lines=60),
    ]
    kernels = [KernelInfo(name=n, location=Location(path=p, line=ln))
               for n, p, ln in [("sgemm_tiled", "kernels/gemm.cu", 12), ("sgemm_mfma", "kernels/gemm.cu", 90),
                                ("reduce_sum", "kernels/reduce.cu", 8), ("asm_add", "kernels/bad.cu", 5),
                                ("fused_gelu", "ext/fused.cu", 10)]]
    asm = 'asm volatile("add.s32 %0, %1, %2;" : "=r"(c) : "r"(a), "r"(b));'
    findings = [
        _find("HIP001", "info", "kernels/reduce.cu", 20, 5, "cudaMalloc -> hipMalloc", fixable=True, fixed=True),
        _find("HIP001", "info", "kernels/reduce.cu", 22, 5, "cudaMemcpy -> hipMemcpy", fixable=True, fixed=True),
        _find("HIP001", "info", "kernels/gemm.cu", 150, 3, "cudaFree -> hipFree", fixable=True, fixed=True),
        _find("WAVE001", "error", "kernels/reduce.cu", 11, 16, "lane index assumes 32 lanes", fixable=True,
              fixed=True, snippet="int lane = threadIdx.x % 32;"),
        _find("WAVE002", "error", "kernels/reduce.cu", 14, 9, "ballot result stored in 32 bits", fixable=False,
              fixed=False, snippet="unsigned m = __ballot_sync(0xffffffff, v);", end=(14, 44)),
        _find("LDS001", "warning", "kernels/gemm.cu", 30, 5, "tile sized for 48 KiB of shared memory",
              fixable=True, fixed=False, snippet="__shared__ float As[64][64];"),
        _find("MFMA001", "info", "kernels/gemm.cu", 95, 1, "32x32 tile: v_mfma_f32_32x32x8f16 fits",
              fixable=False, fixed=False),
        _find("PTX001", "error", "kernels/bad.cu", 7, 3, "inline PTX `add.s32` | no AMDGPU form",
              fixable=False, fixed=False, snippet=asm, detail=asm),
        _find("BLD001", "warning", "CMakeLists.txt", 2, 1, "project(... LANGUAGES CUDA)", fixable=True,
              fixed=True, snippet="project(demo LANGUAGES CXX CUDA)"),
        _find("SHIM009", "warning", "ext/fused.cu", 3, 1, "torch extension needs a HIP build path",
              fixable=False, fixed=False),
    ]
    patches = [
        Patch(path="kernels/reduce.cu", base_hash="a" * 64, agent="translator", rule="HIP001",
              edits=(Edit(start=10, end=20, text="hipMalloc", rule="HIP001"),
                     Edit(start=40, end=50, text="hipMemcpy", rule="HIP001")), reason="2 edits by HIP001"),
        Patch(path="kernels/reduce.cu", base_hash="b" * 64, agent="microarch", rule="WAVE001",
              edits=(Edit(start=5, end=7, text="warpSize", rule="WAVE001"),), reason="1 edits by WAVE001"),
        Patch(path="kernels/gemm.cu", base_hash="c" * 64, agent="translator", rule="HIP001",
              edits=(Edit(start=1, end=9, text="hipFree", rule="HIP001"),), reason="1 edits by HIP001"),
        Patch(path="CMakeLists.txt", base_hash="d" * 64, agent="translator", rule="BLD001",
              edits=(Edit(start=0, end=30, text="project(demo LANGUAGES CXX HIP)", rule="BLD001"),),
              reason="1 edits by BLD001"),
        Patch.create("include/porter_compat.h", "#pragma once\n", agent="shim", rule="",
                     reason="compat header for warp intrinsics"),
    ]
    units = {
        "kernels/gemm.cu": UnitResult(unit="kernels/gemm.cu", verdict="compiled", port_build=_build(0), kernels=(
            _kernel("kernels/gemm.cu", "sgemm_tiled", vgprs=64, sgprs=32, lds_bytes=32768, occupancy=4),
            _kernel("kernels/gemm.cu", "sgemm_mfma", vgprs=128, agprs=64, lds_bytes=65536, vgpr_spill=3,
                    scratch_bytes=16, occupancy=2, mfma_count=16))),
        "kernels/reduce.cu": UnitResult(unit="kernels/reduce.cu", verdict="compiled", port_build=_build(0),
                                        kernels=(_kernel("kernels/reduce.cu", "reduce_sum", lds_bytes=1024),)),
        "kernels/bad.cu": UnitResult(unit="kernels/bad.cu", verdict="failed", failure_class="inline-asm",
                                     port_build=_build(1, "In file included from kernels/bad.cu:1:\n"
                                                          "kernels/bad.cu:7:3: error: invalid instruction\n")),
        "ext/fused.cu": UnitResult(unit="ext/fused.cu", verdict="not-checked",
                                   reason="needs torch/extension.h: torch is not installed"),
    }
    attempts = [
        Attempt(iteration=1, unit="kernels/bad.cu", failure_class="inline-asm", routed_to="microarch",
                message="kernels/bad.cu:7:3: error: invalid instruction"),
        Attempt(iteration=2, unit="kernels/bad.cu", failure_class="inline-asm", routed_to="report",
                message="`add.s32` | not a gfx950 instruction; budget spent (2 of 2)"),
    ]
    return PortState(run_id="20250101-demo", source="/src/demo", output="/out/demo", files=files,
                     kernels=kernels, findings=findings, patches=patches, units=units, attempts=attempts,
                     notes=["nvcc missing: originals were not compiled", "hipify-torch absent: porter table alone"])


@pytest.fixture
def build_kwargs(catalog: dict[str, Rule]) -> dict:
    """`build_report`'s keywords for the hand-built run."""
    return dict(header_set="rocm-7.0 hip headers (vendored)", engine="hipify-torch 2.13.0 + porter table",
                toolchains={"nvcc": "missing: not on PATH, set PORTER_NVCC", "clang-hip": "clang 22.1.0"},
                catalog=catalog)
