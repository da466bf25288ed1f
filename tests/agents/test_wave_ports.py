"""The wave_* fixture projects ported end to end: every unit compiles for gfx950, no fixable WAVE finding stays open.

Each fixture (fixtures/wave_*/) is a small CUDA program written for 32-lane warps that checks itself
against a CPU reference; after `porter port` it must build for a 64-lane target with nothing left
that a WAVE rule knows how to fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WAVE_PROJECTS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("wave_"))


def test_there_are_wave_projects() -> None:
    assert len(WAVE_PROJECTS) >= 3


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize("name", WAVE_PROJECTS)
def test_wave_project_compiles_with_no_fixable_wave_finding_open(name: str, tmp_path: Path) -> None:
    state = port(FIXTURES / name, tmp_path / name, PortOptions())
    verdicts = {u.unit: u.verdict for u in state.units.values()}
    assert verdicts and set(verdicts.values()) == {"compiled"}, verdicts
    open_fixable = [f"{f.rule} {f.location}: {f.message}" for f in state.findings
                    if f.rule.startswith("WAVE") and f.fixable and not f.fixed]
    assert not open_fixable
    report = (tmp_path / name / "porter-report.md").read_text()
    assert "| compiled |" in report
    assert "0xffffffff," not in "".join(p.read_text() for p in (tmp_path / name).glob("*.cu"))


# --- no partial rewrite: the wave consistency property -------------------------------------------

from porter.agents.microarch import wave_check, wave_model  # noqa: E402
from porter.syntax import SourceFile, lang_for  # noqa: E402

NOT_PROJECTS = {"golden", "rules", "reports", "toolchains", "hip_on_cuda", "verify"}  # as tests/engine/test_port.py
PROJECTS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in NOT_PROJECTS
                  and not p.name.startswith("triton_"))
PATTERNS = FIXTURES / "rules" / "WAVE011" / "patterns"
PATTERN_TREES = sorted([p.name for p in PATTERNS.glob("*.cu")] + [p.name for p in PATTERNS.iterdir() if p.is_dir()])
RULE_BEFORES = sorted(p.parent.name for p in (FIXTURES / "rules").glob("WAVE*/before.cu"))


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and lang_for(p.name) and ".porter" not in p.parts}


def _ported(source: Path, tmp_path: Path) -> tuple[dict[str, bytes], dict[str, bytes], list]:
    if source.is_file():
        tree = tmp_path / "src"
        tree.mkdir()
        (tree / source.name).write_bytes(source.read_bytes())
        source = tree
    state = port(source, tmp_path / "out", PortOptions(verify=False))
    return _files(source), _files(tmp_path / "out"), state.findings


@pytest.mark.parametrize("name", PROJECTS)
def test_every_fixture_port_is_whole_per_kernel(name: str, tmp_path: Path) -> None:
    before, after, _ = _ported(FIXTURES / name, tmp_path)
    assert not wave_check.check_tree(before, after)


@pytest.mark.parametrize("name", RULE_BEFORES)
def test_every_wave_rule_example_port_is_whole_per_kernel(name: str, tmp_path: Path) -> None:
    before, after, _ = _ported(FIXTURES / "rules" / name / "before.cu", tmp_path)
    assert not wave_check.check_tree(before, after)


EXPECTED = {  # pattern -> {kernel: decision}
    "half_converted.cu": {"warp_max": "keep32"},
    "no_cross_lane.cu": {"rows_of_32": "keep32"},
    "mask_variables.cu": {"masked": "convert64"},
    "host_geometry.cu": {"row_sums": "keep32"},
    "leading_zeros.cu": {"last_positive": "keep32"},
    "undecided.cu": {"warp_totals": "ask"},
    "helper_header": {"block_sum": "convert64"},
    "host_check.cu": {"lanes": "keep32"},
    "block_of_32.cu": {"total": "keep32", "largest": "keep32"},
    "log2_warp_size.cu": {"warp_sums": "convert64"},
    "scoped_masks.cu": {"scan": "convert64"},
    "host_warp_header": {"any_per_warp": "keep32"},
    "lds_cost.cu": {"staged_sums": "keep32"},
    "host_width.cu": {"seg_scan": "convert64"},
}


@pytest.mark.parametrize("name", PATTERN_TREES)
def test_pattern_gets_its_decision_and_a_whole_port(name: str, tmp_path: Path) -> None:
    before, after, findings = _ported(PATTERNS / name, tmp_path)
    assert not wave_check.check_tree(before, after)
    stated = {f.message.split("`")[1]: f.message for f in findings
              if f.rule == "WAVE011" and f.message.startswith("kernel `")}
    words = {"keep32": "keeps 32-lane logical groups", "convert64": "converts to the whole 64-lane wave",
             "ask": "needs a person"}
    for kernel, decision in EXPECTED[name].items():
        assert words[decision] in stated[kernel], stated[kernel]


def test_patterns_are_all_expected() -> None:
    assert sorted(EXPECTED) == PATTERN_TREES


def test_mask_variables_are_widened_with_their_value(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "mask_variables.cu", tmp_path)
    text = after["mask_variables.cu"].decode()
    assert "unsigned long long mask = 0xffffffffffffffffull" in text
    assert "unsigned long long tmask = 0xffffffffffffffffull" in text
    assert "__shfl_sync(" not in text and "__ballot(i < n)" in text and "0xFFFFFFFF" not in text


def test_a_host_check_per_32_threads_keeps_the_lane_id_in_its_group(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "host_check.cu", tmp_path)
    assert "out[i] = (__lane_id() & 31);" in after["host_check.cu"].decode()


def test_a_block_of_32_threads_reads_warp_size_as_32(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "block_of_32.cu", tmp_path)
    text = after["block_of_32.cu"].decode()
    assert text.count("for (int i = 32 / 2; i > 0; i /= 2)") == 2 and "warpSize / 2; i" not in text


def test_a_log2_warp_size_converts_with_its_warp_size(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "log2_warp_size.cu", tmp_path)
    text = after["log2_warp_size.cu"].decode()
    assert "#define LOG2_WARP_SIZE 6U\n#else\n#define LOG2_WARP_SIZE 5U\n#endif\n#define WARP_SIZE (1U << LOG2_WARP_SIZE)" in text


def test_masks_are_widened_where_they_are_declared(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "scoped_masks.cu", tmp_path)
    text = after["scoped_masks.cu"].decode()
    assert "unsigned long long mask = 0xffffffffffffffffull;" in text
    assert "unsigned long long mask = (1ull << (blockDim.x / warpSize)) - 1;" in text
    assert "int mask" not in text and "0xffffffff;" not in text


def test_a_header_kernel_follows_the_host_warp_of_the_file_including_it(tmp_path: Path) -> None:
    _, after, _ = _ported(PATTERNS / "host_warp_header", tmp_path)
    assert "out[t] = (((unsigned)(__ballot(in[t]) >> (__lane_id() & 32))) != 0);" in after["vote_kernel.cuh"].decode()


def test_checker_reports_the_first_expression_of_a_half_conversion() -> None:
    source = (FIXTURES / "wave_seeded" / "seeded.cu").read_bytes()
    golden = (FIXTURES / "golden" / "wave_seeded" / "seeded.cu").read_text()
    # the lane math converted, the shuffle tree left from 16: the half conversion of real ports
    half = golden.replace("int offset = warpSize / 2;", "int offset = 16;")
    assert half != golden
    (found,) = wave_check.check_tree({"seeded.cu": source}, {"seeded.cu": half.encode()})
    assert found.kernel == "blockStats" and found.decision == "convert64" and found.expression == "offset"
    assert found.line == half[:half.index("int offset = 16;")].count("\n") + 2


def test_checker_reports_a_whole_wave_call_in_a_kept_kernel() -> None:
    source = (PATTERNS / "half_converted.cu").read_bytes()
    kept = source.replace(b"__shfl_xor(v, m, 32)", b"__shfl_xor(v, m)").replace(b"warpSize", b"32")
    (found,) = wave_check.check_tree({"k.cu": source}, {"k.cu": kept})
    assert found.decision == "keep32" and found.expression == "__shfl_xor(v, m)"


def test_checker_reports_a_rewrite_in_an_undecided_kernel() -> None:
    source = (PATTERNS / "undecided.cu").read_bytes()
    touched = source.replace(b"threadIdx.x % 32", b"threadIdx.x % warpSize")
    (found,) = wave_check.check_tree({"k.cu": source}, {"k.cu": touched})
    assert found.decision == "ask" and "partial rewrite" in found.why


def test_a_kernel_without_cross_lane_operations_keeps_its_lane_math() -> None:
    unit = SourceFile("k.cu", (FIXTURES / "wave_logical32" / "logical32.cu").read_bytes(), "cuda")
    (k,) = wave_model.analyse(unit).kernels
    assert k.decision == "keep32" and not k.cross_lane
    assert {q.text for q in k.quantities if q.kind == "lane-math"} == {"threadIdx.x & 31", "threadIdx.x >> 5"}


def test_convert64_only_where_the_lds_it_adds_costs_no_waves() -> None:
    # issue 12: convert to 64 "when ... the LDS/occupancy figures say it pays" (gfx950: 160 KiB of
    # LDS and at most 32 waves per CU, porter/hardware)
    src = (PATTERNS / "lds_cost.cu").read_bytes()
    big = wave_model.analyse(SourceFile("k.cu", src, "cuda")).kernels[0]
    assert big.decision == "keep32"
    assert "32,768 B (32 KiB) -> 131,072 B (128 KiB) per block; 20 -> 4 waves per CU" in big.reason
    small = src.replace(b"[8][WARP_SIZE][WARP_SIZE]", b"[WARP_SIZE]").replace(b"[warp % 8][lane][lane]", b"[lane]")
    small = small.replace(b"[warp % 8][lane][(lane + 1) % WARP_SIZE]", b"[(lane + 1) % WARP_SIZE]")
    kept = wave_model.analyse(SourceFile("k.cu", small, "cuda")).kernels[0]
    assert kept.decision == "convert64" and "128 B (0.125 KiB) -> 256 B (0.25 KiB)" in kept.reason


# --- a wave quantity passed in from the host (cuda-samples shfl_scan: `shfl_scan_test<<<...>>>(d, 32, ...)`) ---

def test_a_width_from_the_host_converts_at_its_launch_sites(tmp_path: Path) -> None:
    _, after, findings = _ported(PATTERNS / "host_width.cu", tmp_path)
    text = after["host_width.cu"].decode()
    query = wave_model.HOST_WAVE_SIZE
    assert f"seg_scan<<<blocks, threads>>>(v, {query}, totals);" in text
    assert f"seg_scan<<<1, blocks>>>(totals, {query});" in text
    assert "int lane = t % warpSize;" in text and "__shfl_up(x, d, seg)" in text
    (stated,) = [f.message for f in findings if f.rule == "WAVE011" and f.message.startswith("kernel `seg_scan`")]
    assert "2 launch-argument" in stated


def test_checker_reports_a_launch_argument_left_at_32_in_a_converted_kernel(tmp_path: Path) -> None:
    before, after, _ = _ported(PATTERNS / "host_width.cu", tmp_path)
    half = after["host_width.cu"].decode().replace(wave_model.HOST_WAVE_SIZE, "32", 1)
    (found,) = wave_check.check_tree(before, {"host_width.cu": half.encode()})
    assert found.kernel == "seg_scan" and found.decision == "convert64" and found.expression == "32"
    assert found.line == half[:half.index("(v, 32, totals)")].count("\n") + 1


def _decision(text: str) -> wave_model.KernelWave:
    (k,) = [k for k in wave_model.analyse(SourceFile("k.cu", text.encode(), "cuda")).kernels if k.kernel == "seg_scan"]
    return k


def test_a_host_width_is_asked_about_when_launch_sites_disagree_or_are_missing() -> None:
    source = (PATTERNS / "host_width.cu").read_text()
    assert _decision(source).decision == "convert64"
    disagree = _decision(source.replace("(totals, 32)", "(totals, 16)"))
    assert disagree.decision == "ask" and "different values (16, 32)" in " ".join(q.note for q in disagree.blocking)
    missing = _decision(source[:source.index("void scan_all")])
    assert missing.decision == "ask" and "no launch of the kernel was found" in " ".join(q.note for q in missing.blocking)


def test_a_host_width_follows_constants_locals_and_hip_launches() -> None:
    source = (PATTERNS / "host_width.cu").read_text()
    named = _decision("#define WARP 32\n" + source.replace("(v, 32, totals)", "(v, WARP, totals)").replace(
        "(totals, 32)", "(totals, w)").replace("void scan_all(int* v, int* totals, int blocks, int threads) {",
                                               "void scan_all(int* v, int* totals, int blocks, int threads) {\n  int w = 32;"))
    assert [q.form for q in named.quantities if q.kind == "launch-argument"] == ["32", "32"]
    ggl = _decision(source.replace("seg_scan<<<1, blocks>>>(totals, 32);",
                                   "hipLaunchKernelGGL(seg_scan, dim3(1), dim3(blocks), 0, 0, totals, 32);"))
    assert [q.text for q in ggl.quantities if q.kind == "launch-argument"] == ["32", "32"]
    queried = _decision(source.replace("(totals, 32)", "(totals, prop.warpSize)"))
    assert [q.form for q in queried.quantities if q.kind == "launch-argument"] == ["32", "64"]


def test_shared_bytes_per_32_thread_warp_are_followed_and_do_not_block() -> None:
    source = (PATTERNS / "host_width.cu").read_text().replace(
        "seg_scan<<<blocks, threads>>>(v, 32, totals);",
        "int warps = threads / 32;\n  int bytes = warps * sizeof(int);\n  seg_scan<<<blocks, threads, bytes>>>(v, 32, totals);")
    k = _decision(source)
    (geometry,) = [q for q in k.quantities if q.kind == "host-geometry"]
    assert geometry.text == "threads / 32" and geometry.form == "neutral" and k.decision == "convert64"
