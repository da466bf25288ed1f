"""Imports run one way: agents import the engine, the engine never imports an agent.

The engine (porter/) names the agents in two places only: porter/graph.py wires their nodes into
the graph, and porter/rules.py (the registry) imports each agent's `rules` package by name through
importlib. A helper two agents need, or one the engine needs, lives in porter/. Both tests read
the source with `ast`, so they see lazy imports inside functions as well as module-level ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Where each installed package's source lives (pyproject's package-dir).
PACKAGE_DIRS = {"porter": ROOT / "porter", "porter.agents": ROOT / "agents"}
# The engine modules allowed to name porter.agents, and why.
ENGINE_MAY_IMPORT_AGENTS = {
    "porter.graph": "wires the agents' nodes into the graph",
    "porter.rules": "the rule registry: imports porter.agents.<agent>.rules by name (importlib)",
}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The porter modules `name` imports (at any depth of its code), resolved to known module names."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets.add(node.args[0].value)
    return {t for t in targets if t in MODULES and t != name}


def _graph() -> dict[str, set[str]]:
    return {name: _imports(name, path) for name, path in MODULES.items()}


def _is_agent(module: str) -> bool:
    return module == "porter.agents" or module.startswith("porter.agents.")


def test_engine_never_imports_an_agent():
    graph = _graph()
    wrong = sorted(f"{src} imports {dst}" for src, dsts in graph.items() if not _is_agent(src)
                   and src not in ENGINE_MAY_IMPORT_AGENTS for dst in dsts if _is_agent(dst))
    assert wrong == []


def test_registry_names_agents_only_through_importlib():
    """porter.rules may load rule packages by name; it imports no agent module statically."""
    tree = ast.parse(MODULES["porter.rules"].read_text())
    static = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and _is_agent(n.module)]
    static += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if _is_agent(a.name)]
    assert static == []


def test_agents_do_not_import_each_other():
    """An agent imports the engine and itself; a piece two agents share moves down into porter/."""
    graph = _graph()
    wrong = []
    for src, dsts in graph.items():
        if not _is_agent(src) or src == "porter.agents":
            continue
        agent = src.split(".")[2]
        wrong += [f"{src} imports {dst}" for dst in dsts if _is_agent(dst) and dst.split(".")[2] != agent]
    assert sorted(wrong) == []


def test_rules_do_not_import_rules():
    """One rule, one file: what two rules (or a rule and its agent's model) share lives beside them, not in a rule."""
    graph = _graph()
    wrong = sorted(f"{src} imports {dst}" for src, dsts in graph.items() for dst in dsts
                   if ".rules." in src and ".rules." in dst and _is_agent(dst))
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    assert _cycles(_graph()) == []
