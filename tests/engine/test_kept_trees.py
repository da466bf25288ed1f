"""porter.syntax.remember / kept: a file's tree carried from one agent's pass to the next."""

from __future__ import annotations

from porter import syntax
from porter.rules import RuleContext, run_on_files
from porter.state import Edit, FileKind, FileRecord, Patch, content_hash
from porter.syntax import SourceFile, kept, remember

SOURCE = b"""#include <cuda_runtime.h>
// a comment: cudaMalloc
__global__ void k(float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = __shfl_down_sync(0xffffffff, o[i], 1);
}
int main() { float* p; cudaMalloc(&p, 4); cudaFree(p); return 0; }
"""


def _edits(data: bytes) -> tuple[Edit, ...]:
    at = data.index(b"cudaMalloc(&p")
    free = data.index(b"cudaFree")
    inc = data.index(b"cuda_runtime.h")
    body = data.index(b"if (i < n)")
    return (Edit(at, at + len("cudaMalloc"), "hipMalloc", "T"),
            Edit(free, free + len("cudaFree"), "hipFree", "T"),
            Edit(inc, inc + len("cuda_runtime.h"), "hip/hip_runtime.h", "T"),
            Edit(body, body, "// inserted\n  // two lines\n  ", "T"),  # an insertion where a replacement starts
            Edit(body, body + 2, "if", "T"))


def test_an_edited_tree_reparses_to_the_tree_of_a_fresh_parse() -> None:
    syntax.forget()
    unit = SourceFile("k.cu", SOURCE, "cuda")
    edits = _edits(SOURCE)
    new = Patch(path="k.cu", base_hash=content_hash(SOURCE), edits=edits, agent="t", rule="T", reason="r").apply_to(SOURCE)
    remember(unit, edits)
    base = kept("k.cu", new)
    assert base is not None and base.data == new
    again = SourceFile("k.cu", new, "cuda", base=base)
    fresh = SourceFile("k.cu", new, "cuda")
    assert str(again.tree.root_node) == str(fresh.tree.root_node)
    assert again.tree.root_node.end_point == fresh.tree.root_node.end_point
    assert [again.text(n) for n in again.captures("(call_expression) @c")] == \
        [fresh.text(n) for n in fresh.captures("(call_expression) @c")]
    assert kept("k.cu", new) is None  # taken


def test_a_kept_tree_is_for_its_bytes_only_and_within_the_budget(monkeypatch) -> None:
    syntax.forget()
    unit = SourceFile("k.cu", SOURCE, "cuda")
    remember(unit)
    assert kept("k.cu", SOURCE + b"\n") is None  # other bytes: parsed afresh
    remember(unit)
    base = kept("k.cu", SOURCE)
    assert base is not None and SourceFile("k.cu", SOURCE, "cuda", base=base).tree is unit.tree
    monkeypatch.setattr(syntax, "KEEP_EDITS", 2)
    remember(unit, _edits(SOURCE))  # more edits than KEEP_EDITS: little of the tree would be reused
    assert not syntax._KEPT
    monkeypatch.setattr(syntax, "KEEP_BYTES", len(SOURCE) - 1)
    remember(unit)
    assert kept("k.cu", SOURCE) is None


def test_the_microarch_agent_reparses_the_translators_tree(monkeypatch) -> None:
    syntax.forget()
    olds = []

    class Counting:
        def __init__(self, lang: str) -> None:
            self.parser = syntax.Parser(syntax.language(lang))

        def parse(self, data, old=None):
            olds.append(old is not None)
            return self.parser.parse(data, old) if old is not None else self.parser.parse(data)

    monkeypatch.setattr(syntax, "_parser", Counting)
    files = {"k.cu": SOURCE}
    records = [FileRecord(path="k.cu", kind=FileKind.cuda)]
    _, patches = run_on_files("translator", records, files.__getitem__, RuleContext())
    assert patches and olds == [False]
    files["k.cu"] = patches[0].apply_to(SOURCE)
    found, _ = run_on_files("microarch", records, files.__getitem__, RuleContext())
    assert found and olds == [False, True]  # incremental: from the translator's tree, edited
