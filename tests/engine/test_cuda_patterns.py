"""porter.cuda_patterns.value: constants followed through a file's definitions, each worked out once."""

from __future__ import annotations

from porter import cuda_patterns as patterns
from porter.syntax import SourceFile


def _value_of(unit: SourceFile, name: str) -> int | None:
    (d, *_) = patterns.definitions(unit)[name]
    return patterns.value(unit, d.view, d.value)


def test_a_chain_of_names_defined_twice_is_walked_once_per_step(monkeypatch) -> None:
    # Each name has two definitions (#if/#else) in terms of the one before: walked afresh, every step
    # doubles the work (2**8 walks of N0 here; a driver-API header took 9.4 million calls).
    lines = ["#if USE_A\n#define N0 32\n#else\n#define N0 32\n#endif\n"]
    lines += [f"#if USE_A\n#define N{i} (N{i - 1} + 0)\n#else\n#define N{i} (N{i - 1} * 1)\n#endif\n" for i in range(1, 8)]
    unit = SourceFile("h.h", "".join(lines).encode(), "cuda")
    calls = []
    real = patterns.unwrap
    monkeypatch.setattr(patterns, "unwrap", lambda node: calls.append(1) or real(node))
    assert _value_of(unit, "N7") == 32
    assert len(calls) < 100, len(calls)  # 509 walked afresh


def test_the_depth_limit_cuts_a_chain_where_it_did() -> None:
    # N19 reaches N0 past the depth limit (16): unknown. N5 reaches it within: 32, whatever was asked
    # before (the memo keys the depth too). A macro that names itself is unknown.
    text = "#define N0 32\n" + "".join(f"#define N{i} N{i - 1}\n" for i in range(1, 20)) + "#define SELF (SELF + 1)\n"
    unit = SourceFile("h.h", text.encode(), "cuda")
    assert _value_of(unit, "N19") is None
    assert _value_of(unit, "N5") == 32 and _value_of(unit, "N16") == 32 and _value_of(unit, "N17") is None
    assert _value_of(unit, "SELF") is None


def test_a_files_launches_and_calls_are_found_once_however_often_asked(monkeypatch) -> None:
    from porter import kernel_facts

    unit = SourceFile("k.cu", b"""
__global__ void a(int* p) { __syncwarp(0xffffffff); p[0] = __shfl_sync(0xffffffff, p[0], 1); }
__global__ void b(int* p) { p[0] = __ballot_sync(0xffffffff, p[0] > 0); }
void host(int* p) { a<<<1, 64>>>(p); b<<<2, 32>>>(p); a<<<4, 64>>>(p); }
""", "cuda")
    ran = []
    real = SourceFile.matches
    monkeypatch.setattr(SourceFile, "matches", lambda self, source, node=None: ran.append(source) or real(self, source, node))
    view = patterns.views(unit)[0]
    for _ in range(3):
        assert [launch.kernel for launch in kernel_facts.launches(unit)] == ["a", "b", "a"]
        assert kernel_facts.block_shape(unit, "a") == (64, 1, 1) and kernel_facts.block_shape(unit, "b") == (32, 1, 1)
        assert [callee for callee, _ in patterns.calls(view, frozenset({"__shfl_sync", "__ballot_sync"}))] == \
            ["__shfl_sync", "__ballot_sync"]
        assert [callee for callee, _ in patterns.calls(view, frozenset({"__syncwarp"}))] == ["__syncwarp"]
    assert len(ran) == 3  # once each: the #define bodies (views), the launches, the calls
