"""What a Triton module names, read with Python's own `ast`: the cheap test before any libcst work.

libcst parses a module at about a tenth of the speed of CPython's parser, and walking its tree
costs more than parsing it. Most modules of a real Triton library hold nothing a TRI rule
rewrites, so each rule declares a `when` test (porter.rules) over these facts: the dotted names
the module spells once its import aliases are resolved (as porter.triton_source resolves them),
the calls, the keyword arguments, the @triton.jit kernels and their launches. A rule whose test
fails is not run, and a module no rule reads is never parsed by libcst (porter.scan).

Every test must be an over-approximation of its rule: true whenever the rule could yield a hit.
A test may look for words in the bytes first: every part of a dotted name the rules resolve is
spelled in the file (in the expression or in the import that binds its head), and so is every
keyword argument. The facts are a superset of what the libcst rules see (every Attribute chain, every import
path and each of its prefixes, raw and resolved), so a test that asks "could this name occur"
errs towards running the rule. A module CPython cannot parse has no facts: every rule runs.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass


@dataclass(frozen=True)
class Facts:
    names: dict[str, str]          # local name -> the dotted module or object an import binds it to
    dotted: frozenset[str]         # every Name/Attribute chain and import path (and prefix), raw and resolved
    calls: frozenset[str]          # what each call's function resolves to
    keywords: frozenset[str]       # keyword argument names of every call
    autotuned: frozenset[str]      # names of @triton.jit functions (any one of the name) also @triton.autotune
    untuned: frozenset[str]        # names of @triton.jit functions (any one of the name) not autotuned
    launches: frozenset[tuple[str, str]]  # (kernel[...] name, keyword) for each `name[grid](..., keyword=...)`


def parse(data: bytes) -> ast.Module | None:
    """CPython's tree of the module, None when it cannot parse it."""
    try:
        text = data.decode("utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences: a SyntaxWarning, not our business
            return ast.parse(text)
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def resolve(d: str, names: dict[str, str]) -> str:
    """porter.triton_source.resolve on a dotted string."""
    head, _, rest = d.partition(".")
    if head not in names:
        return d
    return names[head] + (f".{rest}" if rest else "")


def _aliases(imports: list[ast.Import | ast.ImportFrom]) -> dict[str, str]:
    """porter.triton_source.aliases: imports in source order, a later binding wins."""
    found: dict[str, str] = {}
    for node in sorted(imports, key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname is not None:
                    found[a.asname] = a.name
                else:
                    head = a.name.split(".")[0]
                    found[head] = head
            continue
        if node.module is None or node.level or any(a.name == "*" for a in node.names):
            continue
        for a in node.names:
            found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def facts_of(tree: ast.Module) -> Facts:
    """The facts of a module CPython parsed (`parse`)."""
    imports: list[ast.Import | ast.ImportFrom] = []
    chains: list[str] = []
    call_funcs: list[str] = []
    keywords: set[str] = set()
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    subscript_calls: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            d = _dotted(node)
            if d:
                chains.append(d)
        elif isinstance(node, ast.Call):
            d = _dotted(node.func)
            if d:
                call_funcs.append(d)
            named = [k.arg for k in node.keywords if k.arg is not None]
            keywords.update(named)
            func = node.func
            if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
                subscript_calls.append((func.value.id, named))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
    names = _aliases(imports)
    dotted: set[str] = set()
    for d in chains:
        dotted.add(d)
        dotted.add(resolve(d, names))
    for node in imports:
        paths = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            ([node.module] if node.module else []) + [f"{node.module}.{a.name}" for a in node.names if node.module]
        for path in paths:
            for p in _prefixes(path):
                dotted.add(p)
                dotted.add(resolve(p, names))
    autotuned: set[str] = set()
    untuned: set[str] = set()
    for fn in functions:
        decorators = [resolve(d, names) for d in
                      (_dotted(dec.func if isinstance(dec, ast.Call) else dec) for dec in fn.decorator_list) if d]
        if "triton.jit" in decorators:
            (autotuned if "triton.autotune" in decorators else untuned).add(fn.name)
    launches = frozenset((name, k) for name, named in subscript_calls
                         if name in autotuned or name in untuned for k in named)
    return Facts(names=names, dotted=frozenset(dotted), calls=frozenset(resolve(d, names) for d in call_funcs),
                 keywords=frozenset(keywords), autotuned=frozenset(autotuned), untuned=frozenset(untuned),
                 launches=launches)
