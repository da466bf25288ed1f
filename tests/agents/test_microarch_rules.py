"""The microarch agent's wavefront rules (WAVE###, PTX###) on small HIP sources: what is hit, where, how."""

from __future__ import annotations

from porter import rules
from porter.rules import RuleContext, run_rules
from porter.state import Severity
from porter.syntax import SourceFile, lang_for

MICROARCH = [r for r in rules.rules_for("microarch", "cuda") if r.id.startswith(("WAVE", "PTX"))]


def check(src: str, ids: tuple[str, ...] | None = None, path: str = "k.cu"):
    unit = SourceFile(path, src.encode(), lang_for(path) or "cuda")
    chosen = [r for r in MICROARCH if ids is None or r.id in ids]
    result = run_rules(unit, chosen, RuleContext(), agent="microarch")
    out = result.patch.apply_to(unit.data).decode() if result.patch else src
    return out, result.findings


def at(findings, rule: str) -> list[int]:
    return sorted(f.location.line for f in findings if f.rule == rule)


WARP_REDUCE = """\
__global__ void block_sum(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  int lane = threadIdx.x % 32;
  if (lane == 0) atomicAdd(out, v);
}
"""


def test_warp_reduction_gets_mask_fix_offset_warning_and_lane_error() -> None:
    out, findings = check(WARP_REDUCE)
    assert at(findings, "WAVE001") == [4]
    assert at(findings, "WAVE002") == [4]
    assert at(findings, "WAVE003") == [5]
    (offset,) = [f for f in findings if f.rule == "WAVE002"]
    assert "starts at 16 (line 3)" in offset.message and offset.severity == Severity.warning
    (lane,) = [f for f in findings if f.rule == "WAVE003"]
    assert lane.severity == Severity.error  # `lane` says it is the warp's lane
    assert out == WARP_REDUCE.replace("(0xffffffff,", "(0xffffffffffffffffull,")


def test_unrolled_reduction_names_offset_16_and_width_32_on_one_line() -> None:
    src = "__device__ float f(float v) {\n  v += __shfl_down_sync(0xffffffffu, v, 16, 32);\n  return v;\n}\n"
    out, findings = check(src, ("WAVE001", "WAVE002"))
    assert at(findings, "WAVE001") == at(findings, "WAVE002") == [2]
    (shuffle,) = [f for f in findings if f.rule == "WAVE002"]
    assert "starts at 16" in shuffle.message and "width 32" in shuffle.message
    assert [f.fixed for f in findings if f.rule == "WAVE001"] == [True]
    assert "__shfl_down_sync(0xffffffffffffffffull, v, 16, 32)" in out


def test_strings_and_comments_are_not_code() -> None:
    src = (
        '__global__ void k(int* out) {\n'
        '  // v += __shfl_down_sync(0xffffffff, v, 16); int lane = threadIdx.x % 32;\n'
        '  /* __shared__ float partial[32]; asm("mov.u32 %0, %%laneid;"); */\n'
        '  printf("0xffffffff: 32 lanes, threadIdx.x & 31, __ballot_sync\\n");\n'
        '  out[0] = 0;\n'
        '}\n'
    )
    assert check(src) == (src, [])


def test_masks_and_offsets_inside_macro_bodies() -> None:
    src = (
        "#define FULL_MASK 0xffffffff\n"
        "#define WARP_REDUCE(v) \\\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o)\n"
        "#define BCAST(v) __shfl_sync(0xffffffff, v, 0)\n"
    )
    out, findings = check(src, ("WAVE001", "WAVE002"))
    assert at(findings, "WAVE001") == [1, 4]
    assert at(findings, "WAVE002") == [3, 4]
    assert out == src.replace("0xffffffff\n", "0xffffffffffffffffull\n").replace(
        "(0xffffffff,", "(0xffffffffffffffffull,")


def test_mask_constant_is_widened_only_when_it_is_only_a_mask() -> None:
    src = (
        "const unsigned kFull = 0xffffffff;\n"
        "const unsigned kBoth = ~0u;\n"
        "__device__ int f(int v) {\n"
        "  v += __shfl_xor_sync(kFull, v, 1);\n"
        "  return __any_sync(kBoth, v) + (v & kBoth);\n"
        "}\n"
    )
    out, findings = check(src, ("WAVE001",))
    full, both = sorted(findings, key=lambda f: f.location.line)
    assert full.fixed and not both.fixable
    assert "also used at line 5" in both.message
    assert out.splitlines()[:2] == ["const unsigned long long kFull = 0xffffffffffffffffull;", "const unsigned kBoth = ~0u;"]


def test_64_bit_masks_are_left_alone() -> None:
    src = ("__device__ float f(float v) {\n"
           "  v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);\n"
           "  v += __shfl_xor_sync(~0ull, v, 2);\n"
           "  __syncwarp((unsigned long long)-1);\n"
           "  return v + __all_sync(__activemask(), v > 0);\n"
           "}\n")
    assert check(src, ("WAVE001",)) == (src, [])


def test_lane_math_on_a_tile_is_a_warning_with_the_doubt_said() -> None:
    src = "__global__ void t(float* o) {\n  int col = threadIdx.x & 31;\n  int row = threadIdx.x / 32;\n  o[row * 32 + col] = 0;\n}\n"
    _, findings = check(src, ("WAVE003",))
    assert at(findings, "WAVE003") == [2, 3]
    assert all(f.severity == Severity.warning and "tile width" in f.message for f in findings)


def test_warp_size_constant_chosen_per_target_is_not_hit() -> None:
    src = "#ifdef __GFX9__\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\nconstexpr int kWarpSize = 32;\n"
    _, findings = check(src, ("WAVE003", "WAVE005"))
    assert [(f.rule, f.location.line) for f in findings] == [("WAVE003", 6)]


def test_ballot_held_in_64_bits_then_counted_with_popc() -> None:
    src = ("__global__ void k(int* out, bool p) {\n"
           "  auto votes = __ballot_sync(__activemask(), p);\n"
           "  out[0] = __popc(votes) + __popcll(votes);\n"
           "}\n")
    _, findings = check(src, ("WAVE004",))
    assert [(f.location.line, "__popcll" in f.message) for f in findings] == [(3, True)]


def test_inline_ptx_names_first_instruction_and_carries_the_block() -> None:
    src = ('__device__ int nz(int x) {\n  int r;\n'
           '  asm("{\\n\\t.reg .pred p;\\n\\t"\n      "setp.ne.s32 p, %1, 0;\\n\\tselp.s32 %0, 1, 0, p;\\n\\t}" : "=r"(r) : "r"(x));\n'
           '  return r;\n}\n'
           'unsigned long long cycles() { unsigned lo, hi; asm volatile("rdtsc" : "=a"(lo), "=d"(hi)); return lo; }\n')
    _, findings = check(src, ("PTX001",))
    (ptx,) = findings
    assert ptx.location.line == 3 and ptx.severity == Severity.error
    assert "`setp.ne.s32 p, %1, 0`" in ptx.message
    assert ptx.detail.startswith('asm("{') and ptx.detail.endswith('"r"(x))')


def test_rules_run_on_the_cpp_grammar_too() -> None:
    """.hip and .h files are parsed with tree-sitter-cpp: every query must compile there."""
    _, findings = check(WARP_REDUCE, path="k.hip")
    assert {"WAVE001", "WAVE002", "WAVE003"} <= {f.rule for f in findings}


def test_shared_32_indexed_by_warp_drops_the_doubt() -> None:
    src = ("__global__ void k(float* o) {\n"
           "  __shared__ float partial[32];\n  __shared__ float tile[32];\n"
           "  int warp = threadIdx.x / warpSize;\n  partial[warp] = tile[threadIdx.x % warpSize];\n  o[0] = partial[0];\n}\n")
    _, findings = check(src, ("WAVE005",))
    indexed, unsure = sorted(findings, key=lambda f: f.location.line)
    assert "indexed by `warp`" in indexed.message and "tile width" not in indexed.message
    assert "tile width" in unsure.message
