"""BLD021: setup.py checks that only know CUDA (CUDA_HOME, torch.version.cuda).

Why: on a ROCm build of PyTorch `CUDA_HOME` is None and `torch.version.cuda` is None; the toolkit
is `ROCM_HOME` (torch.utils.cpp_extension) and the version `torch.version.hip`. A setup.py that
stops when CUDA_HOME is missing, or skips its extension when torch.version.cuda is None, never
builds the port. Each check gains the ROCm case.

Before:
    from torch.utils.cpp_extension import CUDA_HOME
    if CUDA_HOME is None:
        raise RuntimeError("CUDA_HOME is not set")
After:
    from torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME
    if CUDA_HOME is None and ROCM_HOME is None:
        raise RuntimeError("CUDA_HOME is not set")

Fix safety: safe for `X is None`, `X is not None`, `not X` and a bare `if X:` where X is CUDA_HOME
imported from torch.utils.cpp_extension (not renamed) or torch.version.cuda. Other uses (parsing
the CUDA version, building paths under CUDA_HOME) are reported for a person.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter.agents.translator.buildfiles import SetupPy, setup_py
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

_EXTENSION_MODULE = "torch.utils.cpp_extension"


@rule(id="BLD021", lang="setup_py", severity="warning", fix="safe")
def setup_cuda_checks(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    tree = setup_py(unit.data)
    if tree is None:
        return
    code = unit.data
    imported, import_end, has_rocm = _cuda_home_import(tree)
    subjects = []
    for node in tree.nodes(cst.Name):
        parent = tree.parents.get(node)
        if node.value == "CUDA_HOME" and imported and not isinstance(parent, (cst.ImportAlias, cst.Attribute)):
            subjects.append((node, "ROCM_HOME"))
    for node in tree.nodes(cst.Attribute):
        if node.attr.value == "cuda" and code[slice(*tree.span(node.value))].endswith(b"version"):
            subjects.append((node, code[tree.span(node.value)[0]:tree.span(node.attr)[0]].decode() + "hip"))
    fixed_any = False
    for node, rocm in sorted(subjects, key=lambda s: tree.span(s[0])[0]):
        x = code[slice(*tree.span(node))].decode()
        if _handled(tree, node, rocm.encode(), code):
            continue
        hit = _check(tree, node, x, rocm)
        if hit is None:
            start, end = tree.span(node)
            yield Hit(start, end, f"{x} is None on ROCm builds of PyTorch: handle {rocm} here by hand")
            continue
        fixed_any = fixed_any or rocm == "ROCM_HOME"
        yield hit
    if fixed_any and not has_rocm:
        yield Hit(import_end, import_end, "ROCM_HOME imported: the ROCm toolkit root, None on CUDA builds",
                  (Edit(start=import_end, end=import_end, text=", ROCM_HOME"),), Severity.info)


def _cuda_home_import(tree: SetupPy) -> tuple[bool, int, bool]:
    """Whether CUDA_HOME comes from torch.utils.cpp_extension under its own name; where its name ends;
    whether ROCM_HOME is imported too."""
    for imp in tree.nodes(cst.ImportFrom):
        if imp.module is None or cst.Module([]).code_for_node(imp.module) != _EXTENSION_MODULE \
                or isinstance(imp.names, cst.ImportStar):
            continue
        names = {a.name.value: a for a in imp.names if isinstance(a.name, cst.Name)}
        alias = names.get("CUDA_HOME")
        if alias is not None and alias.asname is None:
            return True, tree.span(alias.name)[1], "ROCM_HOME" in names
    return False, 0, False


def _handled(tree: SetupPy, node: cst.CSTNode, rocm: bytes, code: bytes) -> bool:
    """Whether the condition around `node` already tests the ROCm case."""
    parent = tree.parents.get(node)
    while isinstance(parent, (cst.Comparison, cst.UnaryOperation, cst.BooleanOperation)):
        if isinstance(parent, cst.BooleanOperation) and rocm in code[slice(*tree.span(parent))]:
            return True
        parent = tree.parents.get(parent)
    return False


def _check(tree: SetupPy, node: cst.CSTNode, x: str, rocm: str) -> Hit | None:
    """The fix for one use of X in a simple check, or None when the use is not one."""
    parent = tree.parents.get(node)
    if isinstance(parent, cst.Comparison) and parent.left is node and len(parent.comparisons) == 1 \
            and isinstance(parent.comparisons[0].comparator, cst.Name) \
            and parent.comparisons[0].comparator.value == "None":
        op = parent.comparisons[0].operator
        if isinstance(op, cst.Is):
            new, target = f"{x} is None and {rocm} is None", parent
        elif isinstance(op, cst.IsNot):
            new, target = f"{x} is not None or {rocm} is not None", parent
        else:
            return None
    elif isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        new, target = f"not ({x} or {rocm})", parent
    elif isinstance(parent, (cst.If, cst.While)) and parent.test is node:
        new, target = f"{x} or {rocm}", node
    else:
        return None
    outer = tree.parents.get(target)
    # `not (...)` binds as tightly as the `not X` it replaces; an and/or needs parentheses unless it
    # is the whole condition
    if not new.startswith("not") and not (isinstance(outer, (cst.If, cst.While, cst.Assert)) and outer.test is target):
        new = f"({new})"
    start, end = tree.span(target)
    return Hit(start, end, f"{x} check -> also {rocm}: on ROCm builds of PyTorch {x} is None",
               (Edit(start=start, end=end, text=new),), Severity.info)
