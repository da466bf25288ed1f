"""MFMA001-MFMA006 and SHIM020 beyond their golden examples: the rocWMMA option (golden text only,
rocWMMA is not installable here), what is left alone, and the ISA the ported fixtures compile to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter import rules
from porter.rules import RuleContext, run_rules
from porter.run import port
from porter.state import PortOptions
from porter.syntax import SourceFile

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "fixtures" / "rules"
ROCWMMA = RuleContext(PortOptions(matrix="rocwmma"))


def _run(rule_id: str, path: Path, ctx: RuleContext = RuleContext()):
    unit = SourceFile(path.name, path.read_bytes(), "cuda")
    return run_rules(unit, [rules.get(rule_id)], ctx, agent="microarch")


def _mma(text: str, ids: tuple[str, ...] = ("MFMA002", "MFMA006")):
    """The mma.sync rules over `text` as the microarch pass runs them: one pass, edits in id order."""
    return run_rules(SourceFile("x.cu", text.encode(), "cuda"), [rules.get(i) for i in ids], RuleContext(),
                     agent="microarch")


def test_wmma_to_rocwmma_golden_text() -> None:
    before = RULES / "MFMA001" / "before.cu"
    result = _run("MFMA001", before, ROCWMMA)
    assert result.patch is not None
    assert result.patch.apply_to(before.read_bytes()).decode() == (RULES / "MFMA001" / "after_rocwmma.cu").read_text()


def test_unsupported_fragment_leaves_the_file_alone() -> None:
    result = _run("MFMA001", RULES / "MFMA001" / "unsupported.cu")
    assert result.patch is None
    assert any("32, 8, 16" in f.message for f in result.findings)


def test_warp_math_is_reported_not_rewritten_for_rocwmma() -> None:
    result = _run("MFMA004", RULES / "MFMA004" / "before.cu", ROCWMMA)
    assert result.patch is None and result.findings
    assert all(f.severity == "warning" for f in result.findings)


def test_rocwmma_port_golden_text(tmp_path: Path) -> None:
    out = tmp_path / "out"
    port(ROOT / "fixtures" / "mfma_wmma_gemm", out, PortOptions(verify=False, matrix="rocwmma"))
    want = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm_rocwmma" / "wmma_gemm.cu"
    assert (out / "wmma_gemm.cu").read_text() == want.read_text()
    assert "#include <rocwmma/rocwmma.hpp>" in want.read_text() and not (out / "porter_compat.h").exists()


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize(("project", "unit", "mfma"), [
    ("mfma_wmma_gemm", "wmma_gemm.cu", "v_mfma_f32_16x16x32_f16"),
    ("mfma_mma_bf16", "mma_bf16.cu", "v_mfma_f32_16x16x32_bf16"),
])
def test_ported_fixture_issues_gfx950_mfma(project: str, unit: str, mfma: str, tmp_path: Path) -> None:
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit

    out = tmp_path / "out"
    port(ROOT / "fixtures" / project, out, PortOptions(verify=False))
    build, kernels = compile_unit(out / unit, ClangHipOptions(arch="gfx950", include_dirs=(out,)), tmp_path / "build")
    assert build.ok, build.stderr[-2000:]
    assert kernels and all(k.mfma_count >= 1 for k in kernels)
    assert all(k.vgpr_spill == k.sgpr_spill == k.scratch_bytes == 0 for k in kernels)
    asm = Path(build.artifacts[0]).read_text()
    assert mfma in asm
    assert "v_mfma_f32_16x16x16" not in asm  # not the half-rate form



# MFMA005's hunk in the golden wmma port, and the loop as MFMA001 alone leaves it.
PAIRED_HUNK = re.compile(r"\n    decltype\(aFrag\) aFrag_k1;.*?wmma::mma_sync_k32\(acc, aFrag, bFrag, aFrag_k1, bFrag_k1, acc\);",
                         re.S)
UNPAIRED_STEP = "\n    wmma::mma_sync(acc, aFrag, bFrag, acc);"


@pytest.mark.toolchain("clang")
def test_paired_k_loop_halves_the_mfma_count(tmp_path: Path) -> None:
    """MFMA005 on the golden wmma port against the same port without it (MFMA001 alone), compiled for
    gfx950. Both K loops hold the kernel's 2 v_mfma (the report's KernelResources.mfma_count), but
    the paired loop covers 2 K steps per iteration: per 16x16 tile and K, the wave issues half the
    MFMAs (K 64: 4 against 8; K 80, an odd step count whose last pair has a zero half: 6 against
    10). Neither spills; only the paired one moves K halves across the wave (v_permlane32_swap)."""
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit, kernel_isa

    golden = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
    paired = (golden / "wmma_gemm.cu").read_text()
    assert len(PAIRED_HUNK.findall(paired)) == 1 and paired.count("kk += 2 * TILE") == 1
    unpaired = PAIRED_HUNK.sub(UNPAIRED_STEP, paired).replace("kk += 2 * TILE", "kk += TILE")
    found = {}
    for name, text in (("paired", paired), ("unpaired", unpaired)):
        src = tmp_path / name / "wmma_gemm.cu"
        src.parent.mkdir()
        src.write_text(text)
        (src.parent / "porter_compat.h").write_text((golden / "porter_compat.h").read_text())
        build, kernels = compile_unit(src, ClangHipOptions(arch="gfx950", include_dirs=(src.parent,)), tmp_path / name / "b")
        assert build.ok, build.stderr[-2000:]
        (kernel,) = [k for k in kernels if "wmma_gemm" in k.kernel]
        assert kernel.vgpr_spill == kernel.scratch_bytes == 0, (name, kernel)
        asm = Path(build.artifacts[0]).read_text()
        isa = kernel_isa(asm, kernels)[kernel.kernel]
        in_loop = max(sum(isa.instrs[i].cls == "matrix" for i in loop) for loop in isa.loops)
        found[name] = (kernel.mfma_count, in_loop, asm.count("v_permlane32_swap"))
    # every MFMA sits in the K loop (the split-wave VALU path's rolled loops hold none)
    assert found["paired"][:2] == found["unpaired"][:2] == (2, 2), found
    assert found["paired"][2] > 0 and found["unpaired"][2] == 0, found
    for depth, paired_mfma, unpaired_mfma in ((64, 4, 8), (80, 6, 10), (4096, 256, 512)):
        steps = depth // 16
        assert found["paired"][1] * -(-steps // 2) == paired_mfma
        assert found["unpaired"][1] * steps == unpaired_mfma


@pytest.mark.toolchain("clang")
def test_paired_k_steps_halve_the_reported_mfma_count_of_one_tile(tmp_path: Path) -> None:
    """The same 16x16 tile over K 32 (the golden port's loop bound fixed to 32, so the loop folds):
    the report's v_mfma count is 2 paired against 4 unpaired."""
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit

    golden = ROOT / "fixtures" / "golden" / "mfma_wmma_gemm"
    paired = (golden / "wmma_gemm.cu").read_text().replace("kk < k", "kk < 32").replace("(kk + TILE) < k", "(kk + TILE) < 32")
    unpaired = PAIRED_HUNK.sub(UNPAIRED_STEP, paired).replace("kk += 2 * TILE", "kk += TILE")
    counts = {}
    for name, text in (("paired", paired), ("unpaired", unpaired)):
        src = tmp_path / name / "wmma_gemm.cu"
        src.parent.mkdir()
        src.write_text(text)
        (src.parent / "porter_compat.h").write_text((golden / "porter_compat.h").read_text())
        build, kernels = compile_unit(src, ClangHipOptions(arch="gfx950", include_dirs=(src.parent,)), tmp_path / name / "b")
        assert build.ok, build.stderr[-2000:]
        (kernel,) = [k for k in kernels if "wmma_gemm" in k.kernel]
        assert kernel.vgpr_spill == 0
        counts[name] = kernel.mfma_count
    assert counts == {"paired": 2, "unpaired": 4}


# One warp's 16 x 16 tile over K 32 as four mma.sync m16n8k16 steps (2 k steps x 2 n8 tiles sharing
# A): MFMA006's paired call against the four unpaired calls it replaces.
_MMA_TILE = """#include <hip/hip_runtime.h>
#include "mfma_gfx950.h"
__global__ void tile(const unsigned* a, const unsigned* b, float* c) {
  const unsigned l = threadIdx.x;
  unsigned af[2][4], bf[2][2][2];
  float acc[2][4];
  for (int i = 0; i < 4; ++i) af[0][i] = a[8 * l + i], af[1][i] = a[8 * l + 4 + i];
  for (int i = 0; i < 8; ++i) bf[i >> 2][(i >> 1) & 1][i & 1] = b[8 * l + i];
  for (int i = 0; i < 8; ++i) acc[i >> 2][i & 3] = c[8 * l + i];
  STEPS
  for (int i = 0; i < 8; ++i) c[8 * l + i] = acc[i >> 2][i & 3];
}
"""
_PAIRED = "porter_mma_m16n16k32_bf16(acc[0], acc[1], af[0], af[1], bf[0][0], bf[0][1], bf[1][0], bf[1][1]);"


def _unpaired_steps() -> str:
    steps = []
    for k, n in ((0, 0), (0, 1), (1, 0), (1, 1)):
        acc = [f"acc[{n}][{i}]" for i in range(4)]
        steps.append(f"porter_mma_m16n8k16_bf16({', '.join(acc)}, {', '.join(f'af[{k}][{i}]' for i in range(4))}, "
                     f"bf[{k}][{n}][0], bf[{k}][{n}][1], {', '.join(acc)});")
    return "\n  ".join(steps)


@pytest.mark.toolchain("clang")
def test_paired_mma_sync_steps_halve_the_reported_mfma_count(tmp_path: Path) -> None:
    """The report's v_mfma count for one warp tile of four m16n8k16 steps: 2 paired against 4. The
    paired call's split-wave fallback (four steps on the VALU) holds no MFMA; neither spills."""
    from porter.toolchains.clang_hip import ClangHipOptions, compile_unit

    counts = {}
    for name, steps in (("paired", _PAIRED), ("unpaired", _unpaired_steps())):
        src = tmp_path / name / "tile.cu"
        src.parent.mkdir()
        src.write_text(_MMA_TILE.replace("STEPS", steps))
        build, kernels = compile_unit(src, ClangHipOptions(arch="gfx950", include_dirs=(ROOT / "shims" / "compat",)),
                                      tmp_path / name / "b")
        assert build.ok, build.stderr[-2000:]
        (kernel,) = kernels
        assert kernel.vgpr_spill == kernel.scratch_bytes == 0, (name, kernel)
        counts[name] = kernel.mfma_count
        asm = Path(build.artifacts[0]).read_text()
        assert "v_mfma_f32_16x16x32_bf16" in asm
    assert counts == {"paired": 2, "unpaired": 4}


def test_mma_sync_pairing_notes_why_a_loop_stays_unpaired() -> None:
    result = _run("MFMA006", RULES / "MFMA006" / "before.cu")
    notes = [f.message for f in result.findings if "left unpaired" in f.message]
    assert len(notes) == 2
    assert any("one accumulator" in n for n in notes) and any("enclosing loop that does more" in n for n in notes)
    lone_k = """__device__ void f(float* acc, const unsigned (*a)[4], const unsigned (*b)[2]) {
  for (int k = 0; k < 4; ++k)
    mma_bf16(acc, a[k], b[k], acc);
}
"""
    text = (RULES / "MFMA006" / "before.cu").read_text() + lone_k
    notes = [f.message for f in _mma(text).findings if "left unpaired" in f.message]
    assert any("a loop over k steps (`k`) into one accumulator" in n for n in notes)
    paired = [f for f in result.findings if "porter_mma_m16n16k32" in f.message]
    assert {f.severity for f in paired} == {"info", "error"}  # the wrapper call site / the asm itself
    assert {f.rule for f in result.findings} == {"MFMA006"}


def test_mma_sync_loop_with_an_odd_count_stays_unpaired_and_an_unknown_one_is_tested() -> None:
    """An odd constant count leaves the nest unpaired, with a note; a count porter cannot evaluate
    (a template parameter, a variable) pairs behind `if ((count) % 2 == 0)`, the nest as it was in the
    else branch."""
    before = (RULES / "MFMA006" / "before.cu").read_text()
    odd = before.replace("#define K_STEPS 2", "#define K_STEPS 3")
    result = _mma(odd)
    assert any("odd count (3)" in f.message and "`k`" in f.message for f in result.findings)
    out = result.patch.apply_to(odd.encode()).decode()
    assert "k += 2" not in out.split("void warp_tile(")[1].split("\n}")[0]
    runtime = before.replace("k < K_STEPS", "k < count")
    result = _mma(runtime)
    tile = result.patch.apply_to(runtime.encode()).decode().split("void warp_tile(")[1].split("\n}")[0]
    paired, _, unpaired = tile.partition("} else {")
    assert "if ((count) % 2 == 0) {" in paired and "k += 2" in paired and "porter_mma_m16n16k32_bf16" in paired
    assert "++k" in unpaired and "mma_bf16(acc[n], a[k], b[k][n], acc[n]);" in unpaired


def test_wmma_shape_macros_resolve_from_a_project_header() -> None:
    """WMMA_M/N/K defined in a project header the file includes count as 16; a macro equal to 8 does not."""
    header = SourceFile("dims.h", b"#define WMMA_M 16\n#define WMMA_N 16\n#define WMMA_K 16\n#define SMALL 8\n", "cuda")
    body = """#include <mma.h>
#include "dims.h"
using namespace nvcuda;
__global__ void tile(const half* a) {
  wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> af;
  wmma::load_matrix_sync(af, a, 16);
}
"""
    ctx = RuleContext(sources={"dims.h": header})
    unit = SourceFile("tile.cu", body.encode(), "cuda")
    ok = run_rules(unit, [rules.get("MFMA001")], ctx, agent="microarch")
    assert ok.patch is not None and not any("no gfx950 MFMA rewrite" in f.message for f in ok.findings)
    alone = run_rules(SourceFile("tile.cu", body.encode(), "cuda"), [rules.get("MFMA001")], RuleContext(), agent="microarch")
    assert alone.patch is None  # without the header the names are unknown: left for a person
    small = body.replace("WMMA_K, half", "SMALL, half")
    bad = run_rules(SourceFile("tile.cu", small.encode(), "cuda"), [rules.get("MFMA001")], ctx, agent="microarch")
    assert bad.patch is None and any("SMALL" in f.message for f in bad.findings)


def test_consecutive_mma_steps_pair_only_as_whole_two_by_two_groups() -> None:
    """Four consecutive asm steps (accumulators 0 and 1, k steps a[0] then a[1]) pair, in any order that
    keeps each accumulator's k order; a third k step into an accumulator leaves the run unpaired."""
    asm = ('asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, '
           '{%8,%9}, {%0,%1,%2,%3};" : "+f"(c[N][0]), "+f"(c[N][1]), "+f"(c[N][2]), "+f"(c[N][3]) : '
           '"r"(a[K][0]), "r"(a[K][1]), "r"(a[K][2]), "r"(a[K][3]), "r"(b[K][N][0]), "r"(b[K][N][1]));')

    def body(steps):
        lines = "\n".join("  " + asm.replace("[N]", f"[{n}]").replace("[K]", f"[{k}]") for k, n in steps)
        return f"__device__ void f(float (*c)[4], const unsigned (*a)[4], const unsigned (*b)[2][2]) {{\n{lines}\n}}\n"

    text = body([(0, 1), (0, 0), (1, 0), (1, 1)])
    result = _mma(text)
    out = result.patch.apply_to(text.encode()).decode()
    assert "porter_mma_m16n16k32_f16(c[1], c[0], a[0], a[1], b[0][1], b[0][0], b[1][1], b[1][0]);" in out
    assert "mma.sync" not in out and out.count("porter_mma") == 1
    three = body([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    result = _mma(three)
    out = result.patch.apply_to(three.encode()).decode()
    assert "porter_mma_m16n16k32" not in out and out.count("porter_mma_m16n8k16_f16") == 5


def test_mma_sync_nest_over_struct_fragments_pairs() -> None:
    """Registers held in struct members (`c[n].x[i]`, `fa[k].r[i]`) pair like plain arrays."""
    text = """struct Acc { float x[4]; };
struct FragA { unsigned r[4]; };
__device__ void mma(float* d, const unsigned* a, const unsigned* b, const float* c) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
__device__ void tile(Acc* c, const FragA* fa, const unsigned (*fb)[2][2]) {
  for (int k = 0; k < 2; ++k)
    for (int n = 0; n < 2; ++n)
      mma(c[n].x, fa[k].r, fb[k][n], c[n].x);
}
"""
    result = _mma(text)
    out = result.patch.apply_to(text.encode()).decode()
    assert ("porter_mma_m16n16k32_bf16(c[n].x, c[n + 1].x, fa[k].r, fa[k + 1].r, fb[k][n], fb[k][n + 1], "
            "fb[k + 1][n], fb[k + 1][n + 1]);") in out


def test_mfma002_leaves_the_steps_mfma006_pairs_and_the_two_rewrite_every_asm() -> None:
    """Both rules read the original text in one pass: MFMA002 alone leaves the asm of a pairable nest
    (MFMA006's to rewrite) and rewrites the rest; together no m16n8k16 asm is left, and the unpaired
    asm steps (one accumulator, the wrapper bodies, the #define) are MFMA002's."""
    text = (RULES / "MFMA006" / "before.cu").read_text()
    alone = _mma(text, ("MFMA002",))
    out = alone.patch.apply_to(text.encode()).decode()
    tile_asm = out.split("void warp_tile_asm(")[1].split("\n}")[0]
    assert "asm volatile(\"mma.sync.aligned.m16n8k16" in tile_asm and "porter_mma" not in tile_asm
    both = _mma(text)
    out = both.patch.apply_to(text.encode()).decode()
    assert re.findall(r"mma\.sync\.aligned\.m16n8k\d+", out) == ["mma.sync.aligned.m16n8k8"]  # tf32: reported
    assert out.count("porter_mma_m16n16k32_") == 5  # four nests, one unrolled run
    assert {f.rule for f in both.findings if "porter_mma_m16n16k32" in f.message} == {"MFMA006"}


def test_warp_literal_inside_a_paired_step_is_left_to_mfma006() -> None:
    """MFMA004 (id before MFMA006) would name `threadIdx.x % 32` inside a step MFMA006 pairs; its edit
    would take those bytes first and leave the asm unrewritten. It leaves them to MFMA006, whose paired
    call carries the expression as written (as when the pairing was part of MFMA002)."""
    text = """__global__ void g(float (*acc)[4], const unsigned (*a)[4], const unsigned (*b)[64][2]) {
  const int lane = threadIdx.x % 32;
  for (int k = 0; k < 2; ++k)
    for (int n = 0; n < 2; ++n)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[n][0]), "+f"(acc[n][1]), "+f"(acc[n][2]), "+f"(acc[n][3])
                   : "r"(a[k][0]), "r"(a[k][1]), "r"(a[k][2]), "r"(a[k][3]), "r"(b[n][threadIdx.x % 32][0]),
                     "r"(b[n][threadIdx.x % 32][1]));
}
"""
    result = _mma(text, ("MFMA002", "MFMA004", "MFMA006"))
    out = result.patch.apply_to(text.encode()).decode()
    assert "asm" not in out
    assert "const int lane = threadIdx.x % porter_mfma::warp_threads;" in out
    assert ("porter_mma_m16n16k32_f16(acc[n], acc[n + 1], a[k], a[k + 1], b[n][threadIdx.x % 32], "
            "b[n + 1][threadIdx.x % 32], b[n][threadIdx.x % 32], b[n + 1][threadIdx.x % 32]);") in out


def test_mma_sync_pairing_steps_every_use_of_the_loop_variables() -> None:
    """The k + 1 and n + 1 operands substitute the loop variable wherever it is used in an index,
    not only as a whole subscript: `b[k * 2 + n]` at step k + 1 is `b[(k + 1) * 2 + n]` (reading
    b[k * 2 + n] again would pair the wrong products, silently)."""
    text = """__device__ void mma(float* d, const unsigned* a, const unsigned* b, const float* c) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
__device__ void tile(float (*acc)[4], const unsigned (*a)[4], const unsigned (*b)[2], int j) {
  for (int k = 0; k < 2; ++k)
    for (int n = 0; n < 2; ++n)
      mma(acc[n + j], a[k], b[k * 2 + n], acc[n + j]);
}
"""
    out = _mma(text).patch.apply_to(text.encode()).decode()
    assert ("porter_mma_m16n16k32_bf16(acc[n + j], acc[(n + 1) + j], a[k], a[k + 1], b[k * 2 + n], "
            "b[k * 2 + (n + 1)], b[(k + 1) * 2 + n], b[(k + 1) * 2 + (n + 1)]);") in out
