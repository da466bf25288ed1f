"""The shared-memory rules (LDS001-LDS003) and launch rules (WAVE100, WAVE101) on small HIP sources,
and the lds_* fixture projects ported and compiled for gfx950."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter import rules
from porter.agents.microarch.rules import lds001_shared_budget as budget
from porter.agents.microarch.rules.wave100_launch_bounds import waves_per_eu
from porter.rules import RuleContext, run_rules
from porter.state import PortOptions, Severity
from porter.syntax import SourceFile

ROOT = Path(__file__).resolve().parents[2]
LDS_PROJECTS = sorted(p.name for p in (ROOT / "fixtures").iterdir() if p.is_dir() and p.name.startswith("lds_"))


def check(src: str, rule_id: str):
    unit = SourceFile("k.cu", src.encode(), "cuda")
    result = run_rules(unit, [rules.get(rule_id)], RuleContext(), agent="microarch")
    return (result.patch.apply_to(unit.data).decode() if result.patch else src), result.findings


def test_budget_counts_constants_sizeof_and_the_larger_dynamic_size() -> None:
    src = ("#define N 4096\nconstexpr int kBytes = 20 * 1024 * sizeof(float);\n"
           "__global__ void k(float* o) { __shared__ float a[N]; extern __shared__ float d[]; o[0] = a[0] + d[0]; }\n"
           "void f(hipStream_t s) {\n"
           "  hipFuncSetAttribute(reinterpret_cast<const void*>(&k), hipFuncAttributeMaxDynamicSharedMemorySize, kBytes);\n"
           "  k<<<1, 256, 1024, s>>>(nullptr);\n}\n")
    _, (f,) = check(src, "LDS001")
    assert f.severity == Severity.warning  # 16 KiB + 80 KiB: over gfx942's 64 KiB, within gfx950's 160 KiB
    assert "98,304 B" in f.message and "static 16,384 B + dynamic 81,920 B (hipFuncSetAttribute, line 5)" in f.message
    assert "gfx950" in f.message and "gfx942" in f.message


def test_budget_error_over_both_and_quiet_under_both() -> None:
    over = "__global__ void k(float* o) { __shared__ float a[170 * 256]; o[0] = a[0]; }\n"
    (_, (f,)) = check(over, "LDS001")
    assert f.severity == Severity.error and "174,080 B" in f.message
    assert check("__global__ void k(float* o) { __shared__ float a[16384]; o[0] = a[0]; }\n", "LDS001")[1] == []


def test_static_bytes_match_the_scan_for_literal_sizes() -> None:
    unit = SourceFile("k.cu", b"#define T 32\n__global__ void k() { __shared__ double a[T][T + 1]; __shared__ int b[7]; }\n", "cuda")
    (k,) = budget.kernels(unit)
    assert budget.static_shared_bytes(unit, k) == 32 * 33 * 8 + 7 * 4


def test_config_calls_cast_bare_kernels_and_name_the_no_ops() -> None:
    src = ("__global__ void k(float* o) {}\n"
           "void f(const void* p) {\n"
           "  hipFuncSetCacheConfig(k, hipFuncCachePreferShared);\n"
           "  hipFuncSetAttribute(p, hipFuncAttributeMaxDynamicSharedMemorySize, 4096);\n}\n")
    out, findings = check(src, "LDS002")
    assert "hipFuncSetCacheConfig(reinterpret_cast<const void*>(&k), hipFuncCachePreferShared)" in out
    assert "hipFuncSetAttribute(p, " in out  # a pointer variable is left alone
    assert "no-op on CDNA" in findings[0].message and "meaningful on ROCm" in findings[1].message


TRANSPOSE = """\
#define TILE 32
__global__ void t(float* o, const float* in, int w) {
  __shared__ float tile[TILE][TILE + 1];
  for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(blockIdx.y + j) * w + threadIdx.x];
  __syncthreads();
  for (int j = 0; j < TILE; j += 8) o[(blockIdx.x + j) * w + threadIdx.x] = tile[threadIdx.x][threadIdx.y + j];
}
void run(float* o, const float* in, int w) { t<<<dim3(w / TILE, w / TILE), dim3(TILE, 8)>>>(o, in, w); }
"""


def test_transpose_tile_is_swizzled_with_degrees_in_the_message() -> None:
    out, (f,) = check(TRANSPOSE, "LDS003")
    assert "__shared__ float tile[TILE][TILE];" in out
    assert "tile[threadIdx.y + j][threadIdx.x ^ ((threadIdx.y + j) % TILE)]" in out
    assert "tile[threadIdx.x][(threadIdx.y + j) ^ (threadIdx.x % TILE)]" in out
    assert f.fixed and "gfx950 2 -> 1, gfx942 1 -> 1" in f.message and "XOR swizzle col ^ (row % 32)" in f.message
    assert check(out, "LDS003")[1] == []


def test_tile_used_through_a_pointer_is_reported_not_rewritten() -> None:
    src = TRANSPOSE.replace("  __syncthreads();\n", "  __syncthreads();\n  float* p = &tile[0][0];\n")
    out, (f,) = check(src, "LDS003")
    assert out == src and not f.fixable and "not rewritten" in f.message


def test_unknown_block_shape_with_threadidx_y_is_not_scored() -> None:
    assert check(TRANSPOSE.split("void run")[0], "LDS003")[1] == []


@pytest.mark.parametrize(("threads", "blocks", "want"), [(256, 2, 2), (128, 8, 4), (64, 1, 1), (1024, 4, 8), (96, 3, 2)])
def test_waves_per_eu_arithmetic(threads: int, blocks: int, want: int) -> None:
    # ceil(blocks * ceil(threads / 64) / 4 SIMDs), at most 8 waves per SIMD
    assert waves_per_eu(threads, blocks)[0] == want


def test_launch_bounds_rewrite_names_the_arithmetic() -> None:
    out, (f,) = check("__global__ void __launch_bounds__(256, 2) k(float* p) {}\n", "WAVE100")
    assert out == "__global__ void __launch_bounds__(256) __attribute__((amdgpu_waves_per_eu(2))) k(float* p) {}\n"
    assert "2 blocks x ceil(256/64) = 4 waves = 8 waves per CU; / 4 SIMDs = 2 waves per SIMD" in f.message
    out, (f,) = check("template <int B> __global__ void __launch_bounds__(256, B) k(float* p) {}\n", "WAVE100")
    assert not f.fixable and "not a constant" in f.message


def test_block_sizes_off_the_wavefront() -> None:
    src = "__global__ void k() {}\nvoid f() { dim3 b(32, 3); k<<<1, b>>>(); k<<<1, dim3(16, 16)>>>(); k<<<1, 48>>>(); }\n"
    _, findings = check(src, "WAVE101")
    assert [f.location.column for f in findings] == [34, 75]  # `b` and `48`
    assert "96 threads = 2 wavefronts of 64 lanes with 32 lanes idle" in findings[0].message


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize("name", LDS_PROJECTS)
def test_lds_fixture_ports_compile_and_lds_bytes_match(name: str, tmp_path: Path) -> None:
    from porter.run import port

    state = port(ROOT / "fixtures" / name, tmp_path / name, PortOptions())
    units = [u for u in state.units.values() if u.verdict != "not-checked"]
    assert units and all(u.verdict == "compiled" for u in units), [(u.unit, u.reason, u.failure_class) for u in units]
    checked = 0
    for u in units:
        src = SourceFile(u.unit, (tmp_path / name / u.unit).read_bytes(), "cuda")
        static = {k.name: budget.static_shared_bytes(src, k) for k in budget.kernels(src)}
        for k in u.kernels:
            assert k.lds_bytes == static[k.kernel.split("(")[0]], k
            checked += 1
    assert checked
