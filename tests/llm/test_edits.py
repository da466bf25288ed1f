"""The edit format: SEARCH/REPLACE blocks parsed into Patches, and the precise reasons for refusing one."""

from __future__ import annotations

import pytest

from porter.llm.edits import MODEL_RULE, EditRejected, confine, parse_answer, to_patches
from porter.state import content_hash

FILE = b"#include <hip/hip_runtime.h>\n\nvoid run(float* x) {\n  cudaFooBar(x);\n  cudaFooBar(x);\n  done(x);\n}\n"


def block(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def reader(files: dict[str, bytes]):
    return lambda path: files.get(path)


def test_blocks_become_one_patch_per_file_against_the_text_shown() -> None:
    answer = parse_answer("Replace the unknown call.\nMore prose.\n\n```cuda\n"
                          + block("k.cu", "  done(x);\n", "  finish(x);\n") + "```\n"
                          + block("k.cu", "#include <hip/hip_runtime.h>\n", "#include <hip/hip_runtime.h>\n#include \"x.h\"\n"))
    assert answer.rationale == "Replace the unknown call. More prose."
    (patch,) = to_patches(answer, reader({"k.cu": FILE}), agent="translator")
    assert patch.origin == "model" and patch.rule == MODEL_RULE and patch.agent == "translator"
    assert patch.base_hash == content_hash(FILE) and patch.reason == "model: Replace the unknown call. More prose."
    assert [e.start for e in patch.edits] == sorted(e.start for e in patch.edits)
    assert patch.apply_to(FILE).decode().splitlines()[:2] == ["#include <hip/hip_runtime.h>", '#include "x.h"']
    assert "  finish(x);\n}" in patch.apply_to(FILE).decode()


def test_an_empty_search_creates_a_missing_file() -> None:
    (patch,) = to_patches(parse_answer("New header.\n" + block("inc/x.h", "", "#pragma once\n")),
                          reader({}), agent="shim")
    assert patch.base_hash is None and patch.apply_to(b"") == b"#pragma once\n" and patch.origin == "model"


def test_an_answer_without_blocks_proposes_nothing() -> None:
    answer = parse_answer("No edit is right: the call is host-only and compiles as is.")
    assert answer.blocks == () and to_patches(answer, reader({}), agent="translator") == []
    assert answer.rationale.startswith("No edit is right")


@pytest.mark.parametrize(("answer", "files", "reason"), [
    (block("k.cu", "  cudaBarFoo(x);\n", "  y;\n"), {"k.cu": FILE},
     "block 1: the SEARCH text is not in k.cu; the closest line is 4: 'cudaFooBar(x);'"),
    (block("k.cu", "  cudaFooBar(x);\n", "  y;\n"), {"k.cu": FILE},
     "block 1: the SEARCH text matches 2 places in k.cu (lines 4, 5); quote more lines"),
    (block("k.cu", "  done(x);\n", "  a;\n") + block("k.cu", "  done(x);\n}\n", "  b;\n}\n"), {"k.cu": FILE},
     "blocks 1 and 2 overlap in k.cu"),
    (block("k.cu", "  done(x);\n", "  done(x);\n"), {"k.cu": FILE}, "block 1: SEARCH and REPLACE are the same"),
    (block("k.cu", "", "x\n"), {"k.cu": FILE}, "block 1: empty SEARCH on k.cu, which exists"),
    (block("gone.cu", "a\n", "b\n"), {}, "block 1: gone.cu is not a file of the output tree"),
    (block("../etc/passwd", "a\n", "b\n"), {}, "'../etc/passwd': paths are relative to the output tree"),
    (block("/etc/passwd", "a\n", "b\n"), {}, "'/etc/passwd': paths are relative to the output tree"),
    (block(".porter/ledger.jsonl", "a\n", "b\n"), {}, "porter's own state (.porter/) is not editable"),
    ("k.cu\n<<<<<<< SEARCH\n  done(x);\n", {"k.cu": FILE}, "block 1 (k.cu): no '=======' line after SEARCH"),
    ("k.cu\n<<<<<<< SEARCH\n  done(x);\n=======\n  y;\n", {"k.cu": FILE}, "block 1 (k.cu): no '>>>>>>> REPLACE' line"),
    ("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", {}, "block 1: no file path on the line before"),
])
def test_a_bad_answer_is_rejected_with_a_precise_reason(answer: str, files: dict, reason: str) -> None:
    with pytest.raises(EditRejected) as e:
        to_patches(parse_answer(answer), reader(files), agent="translator")
    assert reason in str(e.value)


def test_confine_normalises_relative_paths() -> None:
    assert confine("./src/k.cu") == "src/k.cu" and confine("src\\k.cu") == "src/k.cu"
    with pytest.raises(EditRejected):
        confine("C:/x.cu")
