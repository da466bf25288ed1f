"""What porter reads from Triton sources: names through import aliases, kernels and their dots.

Shared by the TRI### rules of the translator and of the microarch agent: the dotted name an
expression spells once `import triton.language as tl` style aliases are resolved, the
@triton.jit kernels of a module, whether each is GEMM-like (one tl.dot) or fused attention
(two or more), and small readers of call arguments and integer literals. Pure functions of a
libcst tree.
"""

from __future__ import annotations

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _import_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""  # type: ignore[arg-type]


def aliases(module: cst.Module) -> dict[str, str]:
    """Local name -> the full dotted module or object it is bound to by an import, anywhere in the file."""
    found: dict[str, str] = {}

    class Visitor(cst.CSTVisitor):
        def visit_Import(self, node: cst.Import) -> None:
            for a in node.names:
                full = _import_name(a.name)
                if a.asname is not None:
                    found[a.asname.name.value] = full  # type: ignore[union-attr]
                else:
                    head = full.split(".")[0]
                    found[head] = head

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if node.module is None or node.relative or isinstance(node.names, cst.ImportStar):
                return
            base = _import_name(node.module)
            for a in node.names:
                name = _import_name(a.name)
                local = a.asname.name.value if a.asname is not None else name  # type: ignore[union-attr]
                found[local] = f"{base}.{name}"

    module.visit(Visitor())
    return found


def resolve(node: cst.BaseExpression, names: dict[str, str]) -> str | None:
    """The full dotted name an expression refers to, through the file's import aliases."""
    d = dotted(node)
    if d is None:
        return None
    head, _, rest = d.partition(".")
    if head not in names:
        return d
    return names[head] + (f".{rest}" if rest else "")


def local_name(names: dict[str, str], full: str, fallback: str) -> str:
    """How this file spells `full` (e.g. `tl` for triton.language); `fallback` when it does not import it."""
    for local, target in names.items():
        if target == full:
            return local
    for local, target in names.items():
        if full.startswith(target + "."):
            return local + full[len(target):]
    return fallback


def call_name(call: cst.Call, names: dict[str, str]) -> str | None:
    return resolve(call.func, names)


def arg(call: cst.Call, keyword: str, position: int) -> cst.Arg | None:
    """A call's argument by keyword, or by position when given positionally."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position] if position < len(positional) else None


def int_value(node: cst.BaseExpression | None) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    return None


def decorator_name(dec: cst.Decorator, names: dict[str, str]) -> str | None:
    expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
    return resolve(expr, names)


def is_kernel(fn: cst.FunctionDef, names: dict[str, str]) -> bool:
    return any(decorator_name(d, names) == "triton.jit" for d in fn.decorators)


def count_dots(fn: cst.FunctionDef, names: dict[str, str]) -> int:
    """tl.dot / tl.dot_scaled calls in a kernel body (the GEMM-likeness the config derivation needs)."""
    n = 0

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal n
            if call_name(node, names) in ("triton.language.dot", "triton.language.dot_scaled"):
                n += 1

    fn.visit(Visitor())
    return n


def kernels(module: cst.Module, names: dict[str, str]) -> dict[str, cst.FunctionDef]:
    """The module's @triton.jit functions by name (top level and nested)."""
    found: dict[str, cst.FunctionDef] = {}

    class Visitor(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if is_kernel(node, names):
                found[node.name.value] = node

    module.visit(Visitor())
    return found


def find(node: cst.CSTNode, kind: type) -> list:
    """Every descendant of one libcst node type, in source order."""
    out: list = []

    class Visitor(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, kind):
                out.append(n)
            return True

    node.visit(Visitor())
    return out

