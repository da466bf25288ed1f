"""Every tree-sitter query in porter and its agents compiles for every grammar it may run on.

Rules with `lang="cuda"` run on .cu/.cuh files (CUDA grammar) and on C/C++ files (the C++
grammar, unless the file holds CUDA syntax). A query naming a node only the CUDA grammar has
(`kernel_call_syntax`) once crashed HIP003 on every .cpp file with a launch (issue 14): queries
are found here statically, so one on a path no test runs is checked too.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from porter import syntax

ROOT = Path(__file__).resolve().parents[2]
QUERY_METHODS = {"captures", "matches"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts if rel.parts[0] == "porter" else ("porter", *rel.parts)
    return ".".join(parts)


def _queries() -> list[tuple[str, str]]:
    """(where, query text) of every literal or module-constant query passed to captures/matches/query."""
    found = []
    for path in sorted([*ROOT.glob("porter/**/*.py"), *ROOT.glob("agents/**/*.py")]):
        tree = ast.parse(path.read_text())
        module = None
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in QUERY_METHODS:
                arg = node.args[0]
            elif name == "query" and len(node.args) == 2:
                arg = node.args[1]
            else:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append((where, arg.value))
            elif isinstance(arg, ast.Name) and arg.id.isupper() or isinstance(arg, ast.Name) and arg.id.startswith("_"):
                module = module or importlib.import_module(_module_name(path))
                value = getattr(module, arg.id, None)
                if isinstance(value, str):
                    found.append((where, value))
            elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.attr.isupper():
                module = module or importlib.import_module(_module_name(path))
                owner = getattr(module, arg.value.id, None)
                value = getattr(owner, arg.attr, None)
                if isinstance(value, str):
                    found.append((where, value))
    return found


QUERIES = _queries()


def test_the_queries_are_found() -> None:
    wheres = {w.split(":")[0] for w, _ in QUERIES}
    assert "agents/translator/rules/hip003_launch.py" in wheres and "porter/scan.py" in wheres
    assert len(QUERIES) > 50


@pytest.mark.parametrize(("where", "source"), QUERIES, ids=[w for w, _ in QUERIES])
def test_query_compiles_for_every_grammar_it_may_run_on(where: str, source: str) -> None:
    assert syntax.query("cuda", source) is not None
    compiled_cpp = syntax.query("cpp", source)  # raises when wrong in both grammars
    if compiled_cpp is None:  # CUDA-only syntax: matches nothing in a C++ file, and says so
        unit = syntax.SourceFile("x.cpp", b"int main() { return 0; }\n", "cpp")
        assert unit.lang == "cpp" and unit.matches(source) == [] and unit.captures(source) == []


def test_a_cpp_file_with_a_launch_is_read_with_the_cuda_grammar() -> None:
    unit = syntax.SourceFile("m.cpp", b"__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n", "cpp")
    assert unit.lang == "cuda" and unit.parsed
    assert unit.matches("(call_expression (kernel_call_syntax) @config) @call")


def test_a_query_wrong_in_every_grammar_raises() -> None:
    with pytest.raises(Exception, match="Invalid node type"):
        syntax.query("cpp", "(no_such_node) @x")
