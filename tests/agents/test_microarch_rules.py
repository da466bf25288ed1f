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


def test_warp_reduction_is_rewritten_for_64_lanes() -> None:
    out, findings = check(WARP_REDUCE)
    assert at(findings, "WAVE001") == [4]
    assert at(findings, "WAVE002") == [3, 4]  # the loop literal (fixed) and the call (info)
    assert at(findings, "WAVE003") == [5]
    loop = [f for f in findings if f.rule == "WAVE002" and f.fixable]
    assert [f.location.line for f in loop] == [3] and "starts its offset at 16 (line 3)" in loop[0].message
    (lane,) = [f for f in findings if f.rule == "WAVE003"]
    assert lane.severity == Severity.error and lane.fixed  # `lane` says it is the warp's lane
    assert out == WARP_REDUCE.replace("offset = 16", "offset = warpSize / 2").replace(
        "__shfl_down_sync(0xffffffff, v, offset)", "__shfl_down(v, offset)").replace("% 32", "% warpSize")
    assert check(out)[1] == [f for f in check(out)[1] if not f.fixable]


def test_unrolled_step_with_width_32_is_a_segment_kept_by_the_wave_strategy() -> None:
    """Width 32 names a 32-lane segment: the code keeps 32-lane groups (WAVE011), the whole-wave rules stay out."""
    src = "__device__ float f(float v) {\n  v += __shfl_down_sync(0xffffffffu, v, 16, 32);\n  return v;\n}\n"
    out, findings = check(src, ("WAVE001", "WAVE002", "WAVE011"))
    assert not at(findings, "WAVE001") and not at(findings, "WAVE002")
    decision = [f for f in findings if f.rule == "WAVE011" and "helper `f`" in f.message]
    assert decision and "keeps 32-lane logical groups" in decision[0].message
    assert "__shfl_down(v, 16, 32)" in out


def test_unrolled_chain_gets_a_guarded_32_step_without_the_mask() -> None:
    src = ("__device__ float f(float v) {\n"
           "  v += __shfl_xor_sync(0xffffffff, v, 16);\n  v += __shfl_xor_sync(0xffffffff, v, 8);\n"
           "  v += __shfl_xor_sync(0xffffffff, v, 4);\n  return v;\n}\n")
    out, _ = check(src, ("WAVE001", "WAVE002"))
    assert out.splitlines()[1:4] == ["  if (warpSize > 32) v += __shfl_xor(v, 32);", "  v += __shfl_xor(v, 16);",
                                     "  v += __shfl_xor(v, 8);"]
    assert not [f for f in check(out, ("WAVE001", "WAVE002"))[1] if f.fixable]


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
    assert at(findings, "WAVE001") == [3, 4]
    assert out == src.replace("o = 16", "o = warpSize / 2").replace("__shfl_xor_sync(FULL_MASK, ", "__shfl_xor(").replace(
        "__shfl_sync(0xffffffff, ", "__shfl(")


def test_full_masks_become_maskless_and_match_masks_are_widened() -> None:
    src = (
        "const unsigned kFull = 0xffffffff;\n"
        "__device__ int f(int v) {\n"
        "  v += __shfl_xor_sync(kFull, v, 1);\n"
        "  v += __any_sync(__activemask(), v) + (v & kFull);\n"
        "  return v + (int)__match_any_sync(0xffffffff, v);\n"
        "}\n"
    )
    out, findings = check(src, ("WAVE001", "WAVE006"))
    assert all(f.fixed for f in findings) and at(findings, "WAVE001") == [3, 5] and at(findings, "WAVE006") == [4]
    assert out.splitlines()[0] == "const unsigned kFull = 0xffffffff;"  # still used as a plain integer
    assert "__shfl_xor(v, 1)" in out and "__any(v)" in out and "__match_any_sync(0xffffffffffffffffull, v)" in out


def test_64_bit_masks_are_left_alone() -> None:
    src = ("__device__ float f(float v) {\n"
           "  v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);\n"
           "  v += __shfl_xor_sync(~0ull, v, 2);\n"
           "  __syncwarp((unsigned long long)-1);\n"
           "  return v + __all_sync(__activemask(), v > 0);\n"
           "}\n")
    assert check(src, ("WAVE001",)) == (src, [])


def test_lane_math_without_cross_lane_operations_is_a_logical_group_left_alone() -> None:
    src = "__global__ void t(float* o) {\n  int col = threadIdx.x & 31;\n  int row = threadIdx.x / 32;\n  o[row * 32 + col] = 0;\n}\n"
    out, findings = check(src, ("WAVE003", "WAVE011"))
    assert out == src and not at(findings, "WAVE003")
    (decision,) = findings
    assert "keeps 32-lane logical groups" in decision.message and "2 lane-math" in decision.message


def test_lane_math_beside_a_shuffle_whose_name_says_nothing_is_still_a_warning() -> None:
    src = ("__global__ void t(float* o) {\n  int col = threadIdx.x & 31;\n  int row = threadIdx.x / 32;\n"
           "  o[row * 32 + col] = __shfl_xor(o[0], 1, 32);\n}\n")
    _, findings = check(src, ("WAVE003",))
    assert not findings  # the width-32 shuffle keeps 32-lane groups: the lane math is right as it is


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


def test_shared_32_by_warp_is_safe_by_lane_is_grown() -> None:
    src = ("__global__ void k(float* o) {\n"
           "  __shared__ float partial[32];\n  __shared__ float tile[32];\n  __shared__ float row[32];\n"
           "  int warp = threadIdx.x / warpSize;\n  partial[warp] = tile[threadIdx.x + 1];\n"
           "  row[threadIdx.x % warpSize] = 1.0f;\n  o[0] = __shfl_xor(partial[0] + row[0], 1);\n}\n")
    out, findings = check(src, ("WAVE005",))
    indexed, unsure, lanes = sorted(findings, key=lambda f: f.location.line)
    assert indexed.severity == Severity.info and "16 waves" in indexed.message and not indexed.fixable
    assert "tile width" in unsure.message and not unsure.fixable
    assert lanes.fixed and "__shared__ float row[64];" in out and "partial[32]" in out


def test_tile_width_next_to_cooperative_tiles_is_not_rewritten() -> None:
    src = ("__global__ void k(float* o) {\n"
           "  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
           "  int tileId = threadIdx.x / 32;\n  __syncwarp();\n  o[tileId] = tile.thread_rank();\n}\n")
    out, findings = check(src, ("WAVE003",))
    assert not findings and out == src  # no cross-lane operation: the 32 is the tile's, kept


def test_ballot_counted_with_clz_is_left_for_a_person() -> None:
    src = ("__global__ void k(int* o, bool p) {\n  unsigned b = __ballot(p);\n"
           "  o[0] = 31 - __clz(b) + __popc(b & ((1u << (threadIdx.x % warpSize)) - 1));\n}\n")
    out, findings = check(src, ("WAVE004", "WAVE008", "WAVE011"))
    # `31 - __clz(b)` has no whole-wave rewrite: the kernel keeps 32-lane groups, where b is the
    # caller's half of the ballot, 32 bits, and every expression around it stays right.
    assert not [f for f in findings if f.rule in ("WAVE004", "WAVE008")]
    (decision,) = [f for f in findings if f.rule == "WAVE011" and f.message.startswith("kernel")]
    assert "keeps 32-lane" in decision.message and "__clz(b)" in decision.message
    assert "unsigned b = ((unsigned)(__ballot(p) >> (__lane_id() & 32)));" in out
    assert "31 - __clz(b) + __popc(b & ((1u << (threadIdx.x % 32)) - 1))" in out



# ---- WAVE010 across a unit and the project headers it includes ------------------------------------

OPS_HEADER = """\
#pragma once
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned mask;
  mask = ((1ull << __lane_id()) - 1);
  return mask;
}
__device__ __forceinline__ unsigned ballot(int pred) { return __ballot(pred != 0); }
__device__ __forceinline__ unsigned lane_id() { return __lane_id(); }
"""
COMPACT = """\
#include "ops/ballot.cuh"
__global__ void compact(const int* in, int* out, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int pred = in[i] > 0;
  unsigned active = ballot(pred);
  unsigned lane = lane_id();
  int leader = __ffs(active) - 1;
  int base = 0;
  if (pred && lane == (unsigned)leader) base = atomicAdd(count, __popc(active));
  base = __shfl(base, leader);
  if (pred) out[base + __popc(active & lanemask_lt())] = i;
}
"""


def _run_tree(files: dict[str, str]):
    from porter.agents.microarch.node import STAGES
    from porter.rules import run_on_files
    from porter.state import FileKind, FileRecord

    records = [FileRecord(path=p, kind=FileKind.cuda) for p in files]
    findings, patches = run_on_files("microarch", records, lambda p: files[p].encode(), RuleContext(), STAGES)
    out = dict(files)
    for patch in patches:
        out[patch.path] = patch.apply_to(out[patch.path].encode()).decode()
    return out, findings


def test_mask_helpers_in_a_header_are_widened_with_their_callers_in_the_unit() -> None:
    # The unit comes first in the scan's order; its rules must still see the header as rewritten.
    out, findings = _run_tree({"src/compact.cu": COMPACT, "src/ops/ballot.cuh": OPS_HEADER})
    header, unit = out["src/ops/ballot.cuh"], out["src/compact.cu"]
    assert "unsigned long long lanemask_lt()" in header and "unsigned long long mask;" in header
    assert "unsigned long long ballot(int pred)" in header
    assert "__forceinline__ unsigned lane_id()" in header  # a lane index is not a mask
    assert "unsigned long long active = ballot(pred);" in unit and "unsigned lane = lane_id();" in unit
    assert "__ffsll(active)" in unit and "__popcll(active)" in unit and "__popcll(active & lanemask_lt())" in unit
    wave010 = [f for f in findings if f.rule == "WAVE010"]
    assert wave010 and all(f.fixed for f in wave010)
    assert [f.location.path for f in findings] == sorted((f.location.path for f in findings),
                                                         key=lambda p: p != "src/compact.cu")


def test_callers_of_a_header_helper_are_not_guessed_without_the_header() -> None:
    out, findings = check(COMPACT, ("WAVE004", "WAVE010"))
    assert out == COMPACT and not findings


def test_mask_function_that_a_header_also_declares_is_left_for_a_person() -> None:
    header = "#pragma once\n__device__ unsigned ballot(int pred);\n"
    unit = ('#include "ballot.h"\n__device__ unsigned ballot(int pred) {\n  unsigned long long b;\n'
            '  b = __ballot(pred);\n  return b;\n}\n')
    out, findings = _run_tree({"k.cu": unit, "ballot.h": header})
    (hit,) = [f for f in findings if f.rule == "WAVE010"]
    assert not hit.fixable and "ballot.h declares it too" in hit.message
    assert out == {"k.cu": unit, "ballot.h": header}


def test_mask_origins_follow_lane_shifts_and_skip_counts() -> None:
    src = ("__device__ unsigned above() { return ~0ull << __lane_id() << 1; }\n"
           "__device__ unsigned below() { return (1u << __lane_id()) - 1; }\n"
           "__device__ int n(unsigned long long m) { int c = __popcll(m); unsigned k = __ffsll(m); return c + k; }\n"
           "__device__ unsigned bit(int i) { return 1ull << flag_index(i); }\n")
    out, findings = check(src, ("WAVE010",))
    assert [f.location.line for f in findings] == [1]  # a 32-bit lane bit is WAVE008's; a count, a flag: no mask
    assert out.startswith("__device__ unsigned long long above()") and "__device__ unsigned below()" in out


def test_ballot_returned_as_32_bits_is_widened_once() -> None:
    src = "__device__ unsigned votes(bool p) {\n  return __ballot_sync(__activemask(), p);\n}\n"
    out, findings = check(src)
    assert [(f.rule, f.fixed) for f in findings if f.rule in ("WAVE004", "WAVE010")] == [("WAVE010", True)]
    assert out.startswith("__device__ unsigned long long votes(bool p)")


def test_every_microarch_and_shim_rule_has_a_trigger_that_holds_wherever_it_hits() -> None:
    # A trigger (porter.rules.Rule.trigger) says where a rule could hit: run without it over every
    # C/C++/CUDA fixture of every rule, a microarch or shim rule never hits where its trigger is false.
    from pathlib import Path

    from porter.state import PortOptions

    checked = rules.rules_for("microarch", "cuda") + rules.rules_for("shim", "cuda")
    assert all(r.trigger is not None for r in checked)
    root = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
    suffixes = {".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"}
    hits = set()
    for path in sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file()):
        data = path.read_bytes()
        for options in (PortOptions(), PortOptions(matrix="rocwmma")):
            ctx = RuleContext(options)
            unit = SourceFile(path.name, data, lang_for(path.name) or "cuda")
            for r in checked:
                if list(r.func(unit, ctx)):
                    hits.add(r.id)
                    assert r.trigger(data, ctx), (r.id, str(path))
    assert len(hits) > 30


def test_a_host_file_is_not_parsed_by_the_microarch_agent(monkeypatch) -> None:
    from porter.state import FileKind, FileRecord

    files = {"host.cpp": b'#include <vector>\n#include "util.h"\nint add(int a, int b) { return a + b; }\n',
             "k.cu": b"__global__ void k(unsigned* o) { o[threadIdx.x] = __ballot_sync(0xffffffff, 1); }\n"}
    parsed = []

    class Counted(SourceFile):
        def __post_init__(self) -> None:
            parsed.append(self.path)
            super().__post_init__()

    monkeypatch.setattr(rules, "SourceFile", Counted)
    found, _ = rules.run_on_files("microarch", [FileRecord(path=p, kind=FileKind.cuda) for p in files],
                                  files.__getitem__, RuleContext(), rules.stages("microarch"))
    assert parsed == ["k.cu"]
    assert found and all(f.location.path == "k.cu" for f in found)
