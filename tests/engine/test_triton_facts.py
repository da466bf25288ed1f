"""The cheap path through Triton modules: rules' `when` tests, libcst only where a rule may rewrite,
spans computed per top-level statement (porter.triton_facts, porter.pysyntax, porter.scan)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from porter import pysyntax, rules
from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import RuleContext
from porter.scan import classify
from porter.state import FileKind

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
TRITON_RULES = [r for r in rules.load().values() if r.lang == "triton"]
HELPER = "_porter_amd_knobs"

# Layouts that shift lines and columns: CRLF, `;`-joined statements, decorators with comments
# between them, async defs, non-ASCII text, header and footer comments, tabs.
EDGES = {
    "crlf.py": "# header\r\n\r\nimport triton\r\nimport triton.language as tl\r\n\r\n@triton.jit\r\ndef k(x):\r\n"
               "  y = tl.load(x)  # c\r\n  if y:\r\n    return 1\r\n# trailing\r\n"
               "z = k[(1,)](1, num_warps=4); w = 2",
    "deco.py": "import triton\n\n@triton.jit\n# c\n@other(\n  1)\nasync   def k(x):\n    pass\n\n\n@dec\n"
               "class A:  # c\n    x = 1\nif (a :=\n 1): pass\nelse:\n    b = 2; c = 3\nx = 1; y = 2\n",
    "unicode.py": "\"\"\"doc é ü\"\"\"\nimport triton\nx = \"ü\" + triton.foo(\"é\", a=1)\nif x: y = 1; z = 2\n",
    "tabs.py": "import triton\n\n\n\nclass A:\n\tdef f(self):\n\t\treturn triton.cdiv(1, 2)\n\n\n# footer\n",
    "semicolons.py": f"import triton; x = (1,\n 2);\nfrom a import b; y = 2 ;  # t\nif 1:\n    import q\n"
                     f"k[g](x, **{HELPER}(a=1)); z = {HELPER}()\n",
    "continued.py": f"import a \\\n; import b\n@dec\ndef f():\n    return {HELPER}(w=1)\n",
}


def _sources() -> list[tuple[str, bytes]]:
    found = [(name, text.encode()) for name, text in EDGES.items()]
    for r in TRITON_RULES:
        found += [(f"{r.id}/{p.name}", p.read_bytes()) for p in sorted((FIXTURES / r.id).glob("*.py"))]
    return found


@pytest.mark.parametrize(("name", "data"), _sources(), ids=[n for n, _ in _sources()])
def test_every_when_test_passes_where_its_rule_hits(name: str, data: bytes) -> None:
    """A `when` test that says no where the rule would hit would lose a finding: each rule is run
    here without its test, on every fixture of every Triton rule and on the layouts above."""
    for r in TRITON_RULES:
        hits = list(r.func(PythonFile(name, data), RuleContext()))
        if hits:
            assert r.when is not None and r.when(PythonFile(name, data)), f"{r.id} hits {name} but its when-test says no"


@pytest.mark.parametrize(("name", "data"), _sources(), ids=[n for n, _ in _sources()])
def test_spans_are_libcsts_whole_module_positions(name: str, data: bytes) -> None:
    unit = PythonFile(name, data)
    whole = MetadataWrapper(cst.parse_module(data.decode()), unsafe_skip_copy=True)
    expected = whole.resolve(PositionProvider)
    ours = list(src.find(unit.module, cst.CSTNode))[1:]
    theirs = list(src.find(whole.module, cst.CSTNode))[1:]
    assert len(ours) == len(theirs) > 0
    for mine, other in zip(ours, theirs):
        assert type(mine) is type(other)
        # Compared as libcst ranges: the last Newline of a file without one ends past its last line.
        assert unit._position(mine) == expected[other]


@pytest.mark.parametrize("name", ["semicolons.py", "continued.py", "crlf.py", "unicode.py"])
def test_shim030_reads_the_same_from_cpython_as_from_libcst(name: str) -> None:
    from porter.agents.shim.rules import shim030_triton_amd_knobs as shim030

    data = EDGES[name].encode()
    if HELPER not in EDGES[name]:
        data += f"\nf(x, **{HELPER}(waves_per_eu=0))\n".encode()
    found = shim030._with_ast(PythonFile(name, data))
    assert found is not None
    assert found == shim030._with_libcst(PythonFile(name, data))


def test_a_module_no_rule_reads_is_never_parsed_by_libcst() -> None:
    data = b"import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x):\n    tl.store(x, 1)\n"
    assert classify("plain.py", data) == (FileKind.triton, "")
    assert pysyntax.digest(data) not in pysyntax._PARSED
    busy = data + b"\n\ndef run(x):\n    k[(1,)](x, num_warps=8)\n"
    assert classify("busy.py", busy) == (FileKind.triton, "")
    assert pysyntax.digest(busy) in pysyntax._PARSED  # parsed once, kept for the microarch rules


def test_a_module_cpython_cannot_parse_still_gets_libcsts_verdict() -> None:
    kind, note = classify("broken.py", b"import triton\ndef f(:\n    pass\n")
    assert kind == FileKind.triton
    assert note.startswith("libcst could not parse it (line ") and note.endswith(": not ported")


class _LibcstOrder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.order: list[cst.CSTNode] = []
        self.parent: list[int] = []
        self._open: list[int] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.parent.append(self._open[-1] if self._open else -1)
        self._open.append(len(self.order))
        self.order.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._open.pop()


WALKED = {**{n: t.encode() for n, t in EDGES.items()},
          "fstrings.py": b"x = f'{a!r:>{w}}' f\"{b=}\" + f'{c:{d}.{e}f}'\n",
          "match.py": b"match p:\n    case {'k': [1, *rest]} | Point(x=0) if rest:\n        pass\n    case _:\n        pass\n",
          "misc.py": b"lambda *a, b=1, **k: (yield)\nasync def f():\n    async with a as b, c:\n        await d\n"
                     b"del x[1:2, ::3]\nglobal g\nwhile (n := 1): break\nelse: pass\ntry:\n    pass\n"
                     b"except* E as e:\n    raise X from e\nfinally:\n    pass\n"}


@pytest.mark.parametrize("name", sorted(WALKED))
def test_the_walk_is_libcsts_visiting_order(name: str) -> None:
    module = cst.parse_module(WALKED[name].decode())
    expected = _LibcstOrder()
    module.visit(expected)
    walk = src._Walk(module)
    assert len(walk.order) == len(expected.order)
    assert all(a is b for a, b in zip(walk.order, expected.order))
    assert walk.parent == expected.parent
    assert all(walk.ends[i] == max([i + 1] + [walk.ends[j] for j, p in enumerate(walk.parent) if p == i])
               for i in range(len(walk.order)))
