"""The translator's fast paths give what the paths they shortcut give (issue 15, throughput).

Each shortcut keeps its general path for the cases it does not take; these tests hold the two
to the same answers: on every golden fixture, on the text a shortcut must refuse, and on random
inputs (seeded).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from tree_sitter import QueryCursor

from porter.rules import Hit, RuleContext, _flat, _made, _Taken, load, rules_for, run_rules
from porter.state import Edit, Patch
from porter.syntax import (
    _LEX_NON_CODE,
    _NON_CODE,
    FileText,
    SourceFile,
    _merge,
    _non_code_spans,
    _parser,
    first_bytes,
    first_on_line,
    lang_for,
    query,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
C_FIXTURES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and lang_for(p.name))

TRICKY = rb"""#include <cuda_runtime.h>
#  include "local.h"
#define MSG "a // not a comment" 'c' // but this is
#define SLASH(a, b) ((a) / (b)) // divide
// a comment with "quotes" and 'ticks'
/* a block "comment" */ int x = 1'000'000 / 2;
const char *r = R"xy(raw "string" with // inside)xy";
const char *u = u8"utf8 \" escaped";
char c = '\''; char d = '"'; wchar_t w = L'w';
template <typename T> bool lt(T a, T b) { return a < b && b <= a << 1; }
__global__ void k() { lt<int>(1, 2); }
"""


def _query_spans(lang: str, data: bytes) -> list[tuple[int, int]]:
    """The non-code spans as SourceFile found them before: the `_NON_CODE` query over every node."""
    tree = _parser(lang).parse(data)
    found = QueryCursor(query(lang, _NON_CODE)).captures(tree.root_node)
    spans = [(n.start_byte, n.end_byte) for n in found.get("literal", ())]
    for node in found.get("raw", ()):
        spans.extend(m.span() for m in _LEX_NON_CODE.finditer(data, node.start_byte, node.end_byte))
    return _merge(spans)


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_non_code_spans_match_the_query_on_every_fixture(path):
    data = path.read_bytes()
    lang = "cuda" if lang_for(path.name) == "cuda" or SourceFile(path.name, data, "cpp").lang == "cuda" else "cpp"
    tree = _parser(lang).parse(data)
    fast = _non_code_spans(tree, data)
    assert fast is None or _merge(fast) == _query_spans(lang, data)
    unit = SourceFile(path.name, data, lang)
    assert list(zip(unit._non_code_starts, unit._non_code_ends)) == _query_spans(lang, data)


def test_non_code_spans_on_literals_of_every_kind():
    tree = _parser("cuda").parse(TRICKY)
    assert not tree.root_node.has_error
    fast = _non_code_spans(tree, TRICKY)
    assert fast is not None and _merge(fast) == _query_spans("cuda", TRICKY)
    unit = SourceFile("t.cu", TRICKY, "cuda")
    code = unit.code_only
    assert code is not None and b"not a comment" not in code and b"raw" not in code and b"escaped" not in code
    assert b"1'000'000 / 2" in code and b"return a < b" in code  # digit separators, operators: code


@pytest.mark.parametrize("data", [
    b'int f( { "unclosed" ; /* c */ @@@ }\n',
    b'int g() { @ "a // b" @ /* "q" */ x = \'"\'; } @@ "tail\n',  # literals inside and beside ERROR nodes
    b'#define M(x) "m" x @\nvoid h() { M(1) @@ ; char s[] = "x\\" // y"; }\n',
    b'$$ int a = 1; $$ $$ /* "in" */ int b; $$ "s" $$\n',  # several ERROR nodes, one inside another
    b'__global__ void k(float* p) { p[0] = 1.f; } <<< @ >>> "x" \'y\' /* z */\n',
])
def test_non_code_spans_of_a_tree_with_errors_are_the_querys(data):
    tree = _parser("cuda").parse(data)
    assert tree.root_node.has_error
    fast = _non_code_spans(tree, data)
    assert fast is not None and _merge(fast) == _query_spans("cuda", data)
    unit = SourceFile("e.cu", data, "cuda")
    assert list(zip(unit._non_code_starts, unit._non_code_ends)) == _query_spans("cuda", data)


def test_first_on_line_finds_what_the_line_anchored_patterns_find():
    from porter.agents.translator.tokens import _DEFINE, _defined
    from porter.includes import _HASH_INCLUDE, INCLUDE

    text = (b'#define A 1\n  #  define B(x) x\n int y; #define C 2\n/* #define D */\n\t#define E\n'
            b'#include <a.h>\n x #include "b.h"\n   #include "c.h" // #include <d.h>\n#include\n#include <e.h>')
    anchored = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
    assert _defined(text) == {m.group(1).decode() for m in anchored.finditer(text)} == {"A", "B", "E"}
    assert [m.groups() for m in INCLUDE.finditer(text)] == \
        [m.groups() for m in _HASH_INCLUDE.finditer(text) if first_on_line(text, m.start())]
    assert [m.start() for m in _DEFINE.finditer(text) if first_on_line(text, m.start())] == \
        [text.index(b"#", m.start()) for m in anchored.finditer(text)]


def test_place_is_span_line_col_and_snippet():
    rng = random.Random(2)
    for _ in range(400):
        data = "".join(rng.choice(["a", "\n", "é", " ", "x" * 300]) for _ in range(rng.randint(0, 30))).encode()
        for _ in range(10):
            start = rng.randint(0, len(data))
            end = rng.randint(max(0, start - 3), len(data))
            one, other = FileText("p", data), FileText("p", data)
            assert one.place(start, end) == (*other.span_line_col(start, end), other.snippet(start))


def test_apply_to_gives_what_the_edit_by_edit_loop_gives():
    rng = random.Random(3)
    for _ in range(3000):
        base = bytes(rng.randrange(97, 123) for _ in range(rng.randint(0, 30)))
        edits = []
        for _ in range(rng.randint(1, 6)):
            start = rng.randint(-1, len(base) + 1)
            edits.append(Edit(start, rng.randint(start - 1, len(base) + 2), rng.choice(["", "X", "hé", "YY"])))
        patch = Patch(path="f", base_hash="x", edits=tuple(edits), agent="a")

        assert _outcome(patch.apply_to, base) == _outcome(patch._apply_one_by_one, base)


def _outcome(apply, base: bytes) -> bytes | str:
    try:
        return apply(base)
    except ValueError as exc:
        return str(exc)


def _one_by_one(hits: list[Hit], taken: _Taken, rule_id: str) -> list[tuple[bool, str]]:
    """run_rules' per-hit loop before add_all: each hit's (fixed, detail)."""
    out = []
    for hit in hits:
        if (earlier := taken.covering(hit.start, hit.end)) is not None:
            out.append((True, f"rewritten by {earlier}"))
        else:
            out.append((bool(hit.edits) and taken.add(hit.edits, rule_id), ""))
    return out


def _state(taken: _Taken):
    return taken.edits, taken._starts, taken._ends, taken._rules


def test_add_all_takes_what_add_takes_hit_by_hit():
    rng = random.Random(4)
    bulk_taken = 0
    for _ in range(4000):
        before = [Hit(s, s + rng.randint(0, 3), "m", edits=(Edit(s, s + rng.randint(0, 3), "t"),))
                  for s in rng.sample(range(60), rng.randint(0, 4))]
        hits = []
        for _ in range(rng.randint(2, 5)):
            edits = []
            for _ in range(rng.randint(1, 3)):
                s = rng.randint(0, 60)
                edits.append(Edit(s, s + rng.randint(0, 4), "h"))
            first = edits[rng.randrange(len(edits))] if rng.random() < 0.8 else edits[0]
            start, end = (first.start, first.end) if rng.random() < 0.9 else (first.start, first.end + 1)
            hits.append(Hit(start, end, "m", edits=tuple(edits)))
        slow, fast = _Taken(), _Taken()
        for taken in (slow, fast):
            _one_by_one(before, taken, "A001")
        expected = _one_by_one(hits, slow, "B002")
        earlier = [list(x) for x in _state(fast)]
        if fast.add_all(hits, "B002"):
            bulk_taken += 1
            assert expected == [(True, "")] * len(hits)
        else:
            assert [list(x) for x in _state(fast)] == earlier  # refused: nothing taken
            assert _one_by_one(hits, fast, "B002") == expected
        assert _state(fast) == _state(slow)
    assert bulk_taken > 100  # the bulk path was taken, not only refused


def _fixture_units():
    for path in C_FIXTURES:
        data = path.read_bytes()
        yield SourceFile(path.relative_to(FIXTURES).as_posix(), data, lang_for(path.name) or "cpp")


def test_tokens_by_name_are_the_one_by_one_tokens(monkeypatch):
    from porter.agents.translator import tokens

    units = list(_fixture_units())
    units.append(SourceFile("t.cu", TRICKY + b"cudaStream_t s; CUDA_LOOKING_MACRO(x); cuMine(y);\n"
                            b"#define CUDA_OWN 1\nint v = CUDA_OWN + cudaSuccess;\n", "cuda"))
    units.append(SourceFile("i.cu", b'#include <cuda/std/atomic>\n#include "cuda_fp16.h"\nint x = cudaSuccess;\n',
                            "cuda"))
    # an include path tree-sitter does not read as one (so not blanked), with a name in it: refused
    units.append(SourceFile("j.cu", b'#include <cuda_runtime.h"\nint x = cudaSuccess;\n', "cuda"))
    # `::` next to names: namespaces, qualified tables' names, a qualified unknown one (kept and dropped)
    units.append(SourceFile("q.cu", b"#include <cub/cub.cuh>\nnamespace mine { void cuOwnQ(); }\n"
                            b"__global__ void k(float* p) { typedef cub::BlockReduce<float, 128> R;\n"
                            b"  thrust::device_vector<int> v; ::cudaMalloc(&p, 4); std::min(1, 2);\n"
                            b"  cudaStream_t s; mine::cuOwnQ(); other::cuFancyQ(); cuFancyQ(); thrust::cuda::par;\n"
                            b"  cudaError_t e = ::cudaGetLastError(); cudaMemcpyKind k2 = ::cudaMemcpyHostToDevice; }\n",
                            "cuda"))
    ctx = RuleContext(project=frozenset({"cuMine"}))
    by_name = tokens._tokens_by_name
    answered = []

    def counted(*args):
        result = by_name(*args)
        answered.append(result is not None)
        return result

    monkeypatch.setattr(tokens, "_tokens_by_name", counted)
    fast = [tokens._classify(u, tokens.DEFAULT_CHOICES, ctx.project) for u in units]
    assert sum(answered) > 20 and not all(answered)  # the fast path answered for most, refused some
    monkeypatch.setattr(tokens, "_tokens_by_name", lambda *args: None)
    slow = [tokens._classify(u, tokens.DEFAULT_CHOICES, ctx.project) for u in units]
    assert fast == slow
    assert sum(len(c.tokens) for c in fast) > 100


def test_translator_findings_and_patches_are_the_same_flat_or_built():
    load()
    rules = rules_for("translator", "cuda")
    for unit in _fixture_units():
        built = run_rules(unit, rules, RuleContext(), agent="translator")
        unit.memo.clear()
        flat = run_rules(unit, rules, RuleContext(), agent="translator", flat=True)
        assert [_made(f) for f in flat.findings] == built.findings
        assert [_flat(f) for f in built.findings] == flat.findings
        assert built.patch == flat.patch


def test_hip014_declared_is_the_last_match_of_its_regex():
    from porter.agents.translator.rules.hip014_shuffle_aggregates import _declaration, _match_ending_at

    words = ["int", "int ", "v", " v", " v;", " ", "\n", "&", "const ", "struct ", ";", "=", ",", ")", "{", "[", ".",
             ">", "vv", "x", "return ", "v2", "\t", "(", "=="]
    rng = random.Random(5)
    found = 0
    for _ in range(20000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 14))).encode()
        name = rng.choice(["v", "vv", "x"])
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        regex = re.compile(rb"(?<![\w.>])(?:const\s+)?(?:struct\s+)?([A-Za-z_]\w*)\s*(?:&\s*|\s)\s*"
                           + re.escape(name.encode()) + rb"\s*(?:[=;,)\[{]|$)")
        expected = None
        for m in regex.finditer(text, start, end):
            if m.group(1) not in (b"return", b"else", b"case", b"goto"):
                expected = (m.span(), m.group(1))
        got = None
        word = name.encode()
        c = text.rfind(word, start, end)
        while c >= 0:
            m = _match_ending_at(_declaration(name), text, start, end, c, len(word))
            if m is not None and m.group(1) not in (b"return", b"else", b"case", b"goto"):
                got = (m.span(), m.group(1))
                break
            c = text.rfind(word, start, c + len(word) - 1)
        assert got == expected, (text, name, start, end)
        found += expected is not None
    assert found > 100  # declarations found (the rest: none, which must agree too)


def test_hip014_enclosing_function_is_the_nearest_function_definition():
    from porter import cuda_patterns as patterns
    from porter.agents.translator.rules.hip014_shuffle_aggregates import _enclosing_function

    checked = 0
    for unit in _fixture_units():
        for node in unit.captures("(identifier) @i"):
            assert _enclosing_function(unit, node) == patterns.enclosing(node, "function_definition")
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("choices", [{}, {"blas": "rocblas", "sparse": "rocsparse", "solver": "rocsolver",
                                          "rand": "rocrand", "dnn": "miopen"}], ids=["default", "roc"])
def test_scanner_guard_refuses_only_what_no_alternative_begins_with(choices):
    from porter.agents.translator import tokens
    from porter.agents.translator.tables import Choices

    scanner = tokens._worth_a_look(Choices(**choices))[2]
    assert b"(?=[" in scanner.pattern  # the guard was built
    unguarded = re.compile(re.sub(rb"^\\b\(\?=\[[^\]]*\]\)", rb"\\b", scanner.pattern))
    assert unguarded.pattern != scanner.pattern
    words = b" ".join(w for unit in _fixture_units() for w in re.findall(rb"\w+", unit.data))
    words += b" " + bytes(range(32, 127)) + b" cudaMalloc _cuda __nv_x nvshmem_x ncclAllReduce 0cudaX cublasSgemm"
    assert scanner.findall(words) == unguarded.findall(words)
    assert first_bytes(rb"(?:ab|c[d-f])") == set(b"ac") and first_bytes(rb"a|[^b]") is None
    assert first_bytes(rb"\b(?:x|^y)") == set(b"xy") and first_bytes(rb"(?:x)?y") is None


def test_project_names_are_those_of_the_line_anchored_and_one_search_patterns():
    from porter import symbols

    macro = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
    texts = [unit.data for unit in _fixture_units()]
    texts.append(TRICKY + b"typedef struct { int a; } Pair;\nusing Alias = int;\nenum class E { A };\n"
                 b"  #  define SPACED 1\nint x; #define NOT_FIRST 2\nunion U { int a; };\n"
                 b"x} Tail; a_struct Nope; typedef struct S *SPtr; enum class { Z }; struct __attribute__((a)) At;\n"
                 b"int first = 1;\n  static const float* g(int a);\nreturn cudaFoo(x);\n")
    texts += [b"int at_start;", b"struct", b"typedef int T", b"}", b"\n\n"]
    for data in texts:
        assert symbols._type_names(data) == [next(g for g in m.groups() if g) for m in symbols._TYPE.finditer(data)]
        assert [m.groups() for m in symbols._DECLARATION_LINE.finditer(b"\n" + data)] == \
            [m.groups() for m in symbols._DECLARATION.finditer(data)]
        assert [m.group(1) for m in symbols._MACRO.finditer(data) if first_on_line(data, m.start())] == \
            [m.group(1) for m in macro.finditer(data)]
    # Random lines of the bytes the declaration pattern's classes turn on: where a possessive loop
    # of _DECLARATION_LINE gave back bytes the backtracking one needs, the matches would differ.
    rng = random.Random(3)
    fuzz = [bytes(rng.choice(b"aBx_1 \t*&:<>,(=;[{\n}") for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    for data in fuzz + [b"int **x;", b"a b c d e f g h(", b"const std::vector<int, A> & v =", b"x  y\t*&z ;"]:
        assert [(m.end() - 1, m.groups()) for m in symbols._DECLARATION_LINE.finditer(b"\n" + data)] == \
            [(m.end(), m.groups()) for m in symbols._DECLARATION.finditer(data)]
    names = symbols.defined_names(texts[-6])
    assert {"Pair", "Alias", "E", "SPACED", "U", "Tail", "SPtr", "At", "first", "g"} <= names
    assert not {"NOT_FIRST", "Nope", "S", "cudaFoo"} & names  # S: inside the typedef, as one search finds it
    assert symbols.defined_names(b"int at_start;") == {"at_start"}


def test_word_search_answers_as_its_one_search():
    from porter.agents.translator import tokens
    from porter.agents.translator.rules import hip008_implicit_runtime_include as hip008
    from porter.agents.translator.tables import DEFAULT_CHOICES
    from porter.syntax import CUDA_SYNTAX, has_cuda_syntax, word_search

    _, prefixes, _ = tokens._worth_a_look(DEFAULT_CHOICES)
    _, fast = tokens._trigger_scanners(DEFAULT_CHOICES)
    one_search = re.compile(rb"(?<![A-Za-z0-9_])(?:" + prefixes.pattern.encode() + rb")")
    pieces = [b"cuda", b"cudaX", b"cuX", b"xcudaMalloc", b"_cudaM", b"CU_", b"CUDA_", b"CUDNN_", b"__nv_", b"nvX",
              b"nvshmem", b"ncclA", b"NCCL_", b"cudnnX", b"__global__", b"__global__x", b"x__global__", b"threadIdx",
              b"threadIdxs", b"dim3", b"dim32", b"<<<", b"<<", b" ", b"\n", b"_", b"a", b"9", b"(", b"__device__"]
    texts = [a + b + c for a in pieces for b in pieces for c in (b"", b" ", b"x")] + [u.data for u in _fixture_units()]
    pairs = [(lambda d: one_search.search(d) is not None, fast),
             (lambda d: CUDA_SYNTAX.search(d) is not None, has_cuda_syntax),
             (lambda d: hip008._CUDA_BUILTINS.search(d) is not None, hip008._HAS_BUILTIN)]
    for reference, search in pairs:
        assert [search(d) for d in texts] == [reference(d) for d in texts]
        assert any(search(d) for d in texts) and not all(search(d) for d in texts)
    ab = word_search([b"ab?c", b"aa+x", b"abd"], whole=True)  # a quantified byte is not part of the literal head
    assert [ab(t) for t in (b"ac", b"abc", b"aax", b"abd", b"abdx", b"xabc", b"ab")] == [True] * 4 + [False] * 3
    for bad in (b"[a]b", b"a|b", b"?a", b"a+x"):
        with pytest.raises(ValueError):
            word_search([bad])


def test_hip014_skips_a_file_only_where_no_aggregate_can_be_shuffled():
    from porter.agents.translator.rules import hip014_shuffle_aggregates as hip014

    assert all(hip014._VECTOR_END.search(name.encode()) for name in hip014.VECTORS)
    rule = load()["HIP014"]
    scalar = b"__global__ void k(float* o) { float v = o[0]; v += __shfl_down_sync(0xffffffff, v, 1); o[0] = v; }\n"
    vector = scalar.replace(b"float v", b"float4 v").replace(b"v += ", b"v = ")
    aggregate = b"struct P { int a, b; };\n" + scalar.replace(b"float v", b"P v").replace(b"v += ", b"v = ")
    assert hip014._VECTOR_END.search(scalar) is None
    hits = {name: list(rule.func(SourceFile("k.cu", data, "cuda"), RuleContext()))
            for name, data in (("scalar", scalar), ("vector", vector), ("aggregate", aggregate))}
    assert not hits["scalar"] and len(hits["vector"]) == 1 and len(hits["aggregate"]) == 1


def test_hip014_guards_equal_their_regexes():
    """`_VECTOR_PAIR`'s translate and find against `_VECTOR_END.search`, and `_names` against
    `_WANTED.search`, on the fixtures and on random strings of the bytes that matter."""
    import random

    from porter.agents.translator.rules import hip014_shuffle_aggregates as hip014

    rng = random.Random(14)
    texts = [unit.data for unit in _fixture_units()] + [TRICKY, b"", b"t", b"4", b"t4", b"__shfl", b"x__shfl"]
    texts += [bytes(rng.choice(b"egrt1234056_x \n") for _ in range(rng.randint(0, 24))) for _ in range(4000)]
    texts += [bytes(rng.choice(b"_shflx( \n") for _ in range(rng.randint(0, 16))) for _ in range(4000)]
    for data in texts:
        assert (b"LD" in data.translate(hip014._VECTOR_PAIR)) == (hip014._VECTOR_END.search(data) is not None), data
        assert (next(hip014._names(data), None) is None) == (hip014._WANTED.search(data) is None), data


HEADER_PATHS = [
    b"#include <a.h>\n", b"#include<a.h>\n", b"#  include <a.h>\n", b"#include /* c < */ <a.h>\n",
    b"#include \\\n  <a.h>\n", b"#include_next <a.h>\n", b"#include /* one\n two */ <a.h>\n",
    b"#if A < B\nint x;\n#endif\n", b"#define LT(a, b) ((a) < (b))\n", b"#define P <a.h>\n#include P\n",
    b"template <typename T> T f(T a) { return a < a << 1; }\n__global__ void k() {}\nvoid g() { k<<<1, 1>>>(); }\n",
    b"// #include <not.h>\nconst char* s = \"#include <not.h>\";\n#include <cuda_runtime.h> // <x>\n",
    b"#pragma once\n#include\t<vector>\nstd::vector<std::vector<int>> v;\n",
    b"import <iostream>;\n", b"#include // c\n<a.h>\n", b"#include \xc2\xa0<a.h>\n",
]


@pytest.mark.parametrize("data", HEADER_PATHS, ids=range(len(HEADER_PATHS)))
def test_non_code_spans_skip_only_the_angle_brackets_no_path_begins_at(data):
    """A `<` is skipped unless `_DIRECTIVE_PATH` or `_IMPORT_PATH` ends at it: the spans stay the
    query's, whatever comes between a directive and its path (with errors or without: the C++
    grammar has them at `__global__` and `<<<`)."""
    for lang in ("cuda", "cpp"):
        tree = _parser(lang).parse(data)
        fast = _non_code_spans(tree, data)
        assert fast is not None and _merge(fast) == _query_spans(lang, data)


def test_quiet_gc_without_collection_keeps_the_results_and_restores_the_collector():
    """quiet_gc(collect=False): no collection inside (the driver's map gathers results, never
    garbage), its survivors moved to the oldest generation unwalked, the thresholds restored,
    nothing frozen after; a cycle made inside is still collectable by a full collection."""
    import gc
    import weakref

    from porter.cluster import quiet_gc

    class Node:
        pass

    before = gc.get_threshold()
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with quiet_gc(collect=False):
            assert gc.get_threshold()[0] == 0
            kept = [[i] for i in range(200_000)]  # past any young threshold: nothing collected
            cycle = Node()
            cycle.self = cycle
            gone = weakref.ref(cycle)
            del cycle
        assert collections == []
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        assert gc.is_tracked(kept[0]) and len(kept) == 200_000
        gc.collect()
        assert gone() is None
    finally:
        gc.callbacks.remove(count)


def test_a_file_run_comes_back_from_a_worker_as_it_left():
    """FileRules through pickle (a worker's result: findings as `_columns`, patches with their
    edits as columns): the same findings and patches as made in the process, each model with the
    same fields in the same order and the same fields set; a run holding a finding of another
    shape (an internal error) and a patch given its default fields too."""
    import pickle

    from porter.rules import FileRules, _FileJob, _rules_on_file
    from porter.state import FileKind, FileRecord, Finding, Location, Severity

    def fields(model):
        nested = {k: fields(v) if hasattr(v, "__pydantic_fields_set__") else v for k, v in model.__dict__.items()}
        return type(model), list(nested.items()), model.__pydantic_fields_set__

    load()
    job = _FileJob("translator", RuleContext(), (), {}, "t", data=False)
    runs = [_rules_on_file(job, (FileRecord(path=u.path, kind=FileKind.cuda), u.data)) for u in _fixture_units()]
    assert sum(len(r.findings) for r in runs) > 50 and sum(len(r.patches) for r in runs) > 5
    odd = Finding(rule="internal-error", severity=Severity.error, message="m", location=Location(path="a.cu", line=1))
    runs.append(FileRules("cuda", [runs[0].findings[0], odd], [Patch(path="a.cu", base_hash="h", edits=(
        Edit(0, 1, "x", "HIP001"),), agent="translator", origin="user", rule="HIP001", reason="r")], b"x"))
    runs.append(FileRules("cuda", [], [], None, complete=False))
    for run in runs:
        back = pickle.loads(pickle.dumps(run))
        made = [_made(f) for f in run.findings]
        assert [fields(f) for f in back.findings] == [fields(f) for f in made] and back.findings == made
        assert [fields(p) for p in back.patches] == [fields(p) for p in run.patches] and back.patches == run.patches
        assert all(type(e) is Edit for p in back.patches for e in p.edits)
        assert (back.lang, back.data, back.complete) == (run.lang, run.data, run.complete)


def test_any_of_is_true_exactly_where_one_of_its_words_occurs():
    """any_of's searches (by first byte, long words by `in`) against the plain substring test:
    words of one and of different first bytes, short and long, overlapping, on random bytes."""
    from porter.rules import LONG_WORD, any_of

    rng = random.Random(15)
    alphabet = b"abm._/<CBn\n \x80"
    word_sets = [["torch/", "ATen/", "c10/"], ["min", "max"], [".."], ["_CB"], ["<<<", "__launch_bounds__"],
                 ["mma.sync", "ma", "m"], [b"a" * LONG_WORD, "ab"], ["labeled_partition"], []]
    for words in word_sets:
        trigger = any_of(words)
        encoded = [w.encode() if isinstance(w, str) else w for w in words]
        cases = [b"", *encoded, *(b"x" + w[:-1] for w in encoded if w)]
        cases += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(40))) for _ in range(3000)]
        cases += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(40))) + w for w in encoded for _ in range(50)]
        for data in cases:
            assert trigger(data, RuleContext()) == (not encoded or any(w in data for w in encoded)), (words, data)


def test_mfma004_trigger_is_its_pattern_over_the_decoded_text():
    """MFMA004's trigger (its words first, then _TENSOR_CORE on the decoded text) against the
    pattern alone, on the pattern's own spellings and on random bytes, invalid UTF-8 included."""
    from porter.agents.microarch.rules import mfma004_warp_lanes_32 as mfma004

    rng = random.Random(4)
    spellings = [b"wmma ::", b"nvcuda::", b"mma.sync", b"ldmatrix", b"porter_wmma", b"porter_mma_", b"porter_ldmatrix",
                 b"xwmma::", b"\xc3\xa9wmma::", b"porter_mm", b"\xffnvcuda ::"]
    alphabet = b"wmanvcud:.sylbtrixpoe_ \xc3\xa9\xff\n"
    cases = spellings + [bytes(rng.choice(alphabet) for _ in range(rng.randrange(30))) for _ in range(5000)]
    cases += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(12))) + s for s in spellings for _ in range(40)]
    for data in cases:
        expected = mfma004._TENSOR_CORE.search(data.decode("utf-8", "replace")) is not None
        assert mfma004._trigger(data, RuleContext()) == expected, data


def test_hip012_trigger_is_its_regex():
    """HIP012's trigger (min or max, then the names' spellings, then _WANTED) against _WANTED alone."""
    from porter.agents.translator.rules import hip012_integer_min_max as hip012

    rng = random.Random(12)
    pieces = [b"u", b"ll", b"ull", b"min", b"max", b"f", b"(", b" ", b"_", b"\n", b"x"]
    cases = [b"".join(rng.choice(pieces) for _ in range(rng.randrange(8))) for _ in range(20000)]
    cases += [b"umin(", b"ullmax (", b"xumin(", b"fminf(", b"llmin\t(", b"a ullmin(b)"]
    for data in cases:
        assert hip012._trigger(data, RuleContext()) == (hip012._WANTED.search(data) is not None), data


def test_a_patch_applied_where_its_rules_ran_lands_as_its_edits_do():
    """run_on_files applies each file's patch where its rules ran (in this process, or in a
    worker that sends the bytes back) and keeps the result with the patch (`known_result`):
    `apply_to` on the base gives what the edits give (a copy of the patch, which has no result
    kept, applies them), on another base the edits apply; applied=False keeps nothing."""
    import gc

    from porter import cluster
    from porter.rules import run_on_files
    from porter.state import _RESULTS, FileKind, FileRecord

    load()
    files = {u.path: u.data for u in _fixture_units() if u.lang == "cuda"}
    records = [FileRecord(path=p, kind=FileKind.cuda) for p in files]
    pool = cluster.LocalDispatcher(processes=2, min_items=1, min_bytes=0)
    try:
        with cluster.using(pool):
            spread = run_on_files("translator", records, files.__getitem__, RuleContext())[1]
    finally:
        pool.close()
    alone = run_on_files("translator", records, files.__getitem__, RuleContext())[1]
    assert spread == alone and len(alone) > 5
    for patch in [*spread, *alone]:
        assert id(patch) in _RESULTS  # a result kept: apply_to below returns it
        base = files[patch.path]
        edited = patch.model_copy().apply_to(base)
        other = base + b"\n// another base\n"
        assert patch.apply_to(other) == patch.model_copy().apply_to(other) != edited
        assert edited != base and patch.apply_to(base) == edited
        assert id(patch) not in _RESULTS  # landed: dropped
    found = run_on_files("translator", records, files.__getitem__, RuleContext(), applied=False)[1]
    assert found == alone and not any(id(p) in _RESULTS for p in found)

    # The kept bytes are what apply_to returns, on the base of the patch's hash only, once.
    patch = alone[0].model_copy()
    patch.known_result(b"kept")
    assert patch.apply_to(files[patch.path] + b" ") != b"kept"
    assert patch.apply_to(files[patch.path]) == b"kept"
    assert patch.apply_to(files[patch.path]) == patch.model_copy().apply_to(files[patch.path]) != b"kept"
    patch.known_result(b"kept")
    key = id(patch)
    del patch
    gc.collect()
    assert key not in _RESULTS  # dropped with its patch


def test_taken_edits_applied_in_their_kept_order_are_what_apply_to_gives():
    """run_rules(applied=True) cuts the patched bytes from the edits as _Taken keeps them (by
    start): the bytes apply_to gives, on every fixture; None where an insertion was taken (kept in
    the order taken, not apply_to's) or an edit leaves the file, which the caller applies."""
    load()
    rules = rules_for("translator", "cuda")
    cut = refused = 0
    for unit in _fixture_units():
        result = run_rules(unit, rules, RuleContext(), agent="translator", flat=True, applied=True)
        if result.patch is None:
            assert result.data is None
            continue
        if result.data is None:
            refused += 1
        else:
            cut += 1
            assert result.data == result.patch.model_copy().apply_to(unit.data)
    assert cut > 5 and refused > 0
    taken = _Taken()
    assert taken.add((Edit(4, 7, "abc", "HIP001"), Edit(0, 2, "x", "HIP001")), "HIP001")
    assert taken.add_all([Hit(9, 10, "m", (Edit(9, 10, "yz"),)), Hit(12, 14, "m", (Edit(12, 14, ""),))], "HIP004")
    assert taken.applied(b"0123456789abcdef") == b"x23abc78yzabef"
    assert taken.applied(b"0123456789abc") is None  # the last edit ends past these bytes
    assert taken.add((Edit(3, 3, "ins"),), "HIP002")
    assert taken.applied(b"0123456789abcdef") is None  # an insertion: apply_to decides the order
    clash = _Taken()  # one hit's own edits are not checked against each other: apply_to raises on these
    assert clash.add((Edit(0, 4, "a"), Edit(2, 6, "b")), "HIP001")
    assert clash.applied(b"0123456789") is None
    with pytest.raises(ValueError):
        Patch(path="p.cu", base_hash="h", edits=tuple(clash.edits), agent="translator").apply_to(b"0123456789")


def test_hip008_runtime_include_from_the_include_paths_is_its_regex():
    from porter.agents.translator.rules import hip008_implicit_runtime_include as hip008

    texts = [unit.data for unit in _fixture_units()]
    texts += [b'#include "cuda_runtime.h"\n', b"  #  include <cuda.h>\n", b"#include <hip/hip_runtime.h>\n",
              b"#include < cuda.h>\n", b"// #include <cuda.h>\n", b"x; #include <cuda.h>\n", b"#include <cuda.hpp>\n",
              b"#include <cuda_runtime.h\n", b"#include_next <cuda.h>\n", b"#include <a.h>\n#include <cuda.h>\n", b""]
    for data in texts:
        unit = SourceFile("h.cuh", data, "cuda")
        assert hip008._includes_runtime(unit) == (hip008._RUNTIME_INCLUDE.search(data) is not None), data
    assert sum(hip008._includes_runtime(SourceFile("h.cuh", d, "cuda")) for d in texts) >= 4


def test_quoted_include_paths_are_the_querys_captures():
    from porter import rules

    texts = [unit.data for unit in _fixture_units()]
    texts.append(TRICKY + b'#include\t"tab.h"\n#\tinclude "hash_tab.h"\n// #include "in_comment.h"\n'
                 b'/* #include "in_block.h" */\nconst char *s = "#include \\"in_string.h\\"";\n'
                 b'#define INC #include "in_define.h"\n#if 0\n#include "in_if0.h"\n#endif\n#include <angled.h>\n'
                 b'#includex "not_a_directive.h"\n  #  include "indented.h" // trailing\n'
                 b'int broken( { #include "after_error.h"\n#include "last.h"')
    texts += [b"", b"#include", b'#include "', b'#include "a.h"', b"x #include \"mid_line.h\"\n"]
    for data in texts:
        for lang in ("cuda", "cpp"):
            unit = SourceFile("t.cu", data, lang)
            expected = [(n.start_byte, n.end_byte) for n in unit.captures(rules._QUOTED_INCLUDES)]
            assert [(n.start_byte, n.end_byte) for n in rules._quoted_include_paths(unit)] == expected, (lang, data[-200:])
    found = {SourceFile("t.cu", texts[-6], "cuda").text(n) for n in
             rules._quoted_include_paths(SourceFile("t.cu", texts[-6], "cuda"))}
    assert {'"local.h"', '"tab.h"', '"hash_tab.h"', '"in_if0.h"', '"indented.h"'} <= found
    assert not {'"in_comment.h"', '"in_block.h"', '"in_define.h"', '"not_a_directive.h"'} & found


def test_a_lazy_source_file_answers_as_a_source_file_and_included_parses_no_header_without_quoted_includes():
    from porter import rules
    from porter.syntax import LazySourceFile

    texts = [unit.data for unit in _fixture_units()] + [TRICKY, b"", b"__global__ void k() {}\n"]
    for data in texts:
        for lang in ("cuda", "cpp"):
            eager, lazy = SourceFile("t.h", data, lang), LazySourceFile("t.h", data, lang)
            assert "tree" not in lazy.__dict__ and lazy.lang == eager.lang  # the grammar chosen, nothing parsed
            assert str(lazy.tree.root_node) == str(eager.tree.root_node)
            assert (lazy._non_code_starts, lazy._non_code_ends) == (eager._non_code_starts, eager._non_code_ends)
            assert lazy.code_only == eager.code_only and lazy.parsed == eager.parsed
            assert [rules._quoted_include_paths(u) == [] for u in (lazy, eager)] == [not eager.captures(
                rules._QUOTED_INCLUDES)] * 2
    with pytest.raises(AttributeError):
        LazySourceFile("t.h", b"", "cpp").no_such_attribute  # noqa: B018 - the lookup is the test
    # A header that names only <...> headers is read for its bytes and its (no) quoted includes, unparsed.
    headers = {"a.h": b'#include "b.h"\n', "b.h": b"#include <cuda_runtime.h>\n#  include\t<vector>\nint b;\n"}
    ctx = RuleContext(sources=rules._Sources(headers))
    unit = SourceFile("main.cu", b'#include "a.h"\nint main() {}\n', "cuda")
    (a,) = ctx.included(unit)
    assert a.path == "a.h" and "tree" not in a.__dict__  # found by name: not parsed yet
    (b,) = ctx.included(a)
    assert "tree" in a.__dict__  # it names a quoted header: parsed to find which
    assert b.path == "b.h" and ctx.included(b) == [] and "tree" not in b.__dict__
