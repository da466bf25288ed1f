"""What porter reads from Triton sources: names through import aliases, kernels and their dots.

Shared by the TRI### rules of the translator and of the microarch agent: the dotted name an
expression spells once `import triton.language as tl` style aliases are resolved, the
@triton.jit kernels of a module, whether each is GEMM-like (one tl.dot) or fused attention
(two or more), and small readers of call arguments and integer literals. Pure functions of a
libcst tree.
"""

from __future__ import annotations

import bisect
import dataclasses
import re

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
    for node in find(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.Import):
            for a in node.names:
                full = _import_name(a.name)
                if a.asname is not None:
                    found[a.asname.name.value] = full  # type: ignore[union-attr]
                else:
                    head = full.split(".")[0]
                    found[head] = head
            continue
        if node.module is None or node.relative or isinstance(node.names, cst.ImportStar):
            continue
        base = _import_name(node.module)
        for a in node.names:
            name = _import_name(a.name)
            local = a.asname.name.value if a.asname is not None else name  # type: ignore[union-attr]
            found[local] = f"{base}.{name}"
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
    return sum(call_name(node, names) in ("triton.language.dot", "triton.language.dot_scaled")
               for node in find(fn, cst.Call))


def kernels(module: cst.Module, names: dict[str, str]) -> dict[str, cst.FunctionDef]:
    """The module's @triton.jit functions by name (top level and nested)."""
    return {node.name.value: node for node in find(module, cst.FunctionDef) if is_kernel(node, names)}


def find(node: cst.CSTNode, kind: type | tuple[type, ...]) -> list:
    """Every descendant of one libcst node type (the node itself included), in source order.

    The rules of a module ask this a dozen times; the tree is walked once (`_Walk`), its nodes
    listed in libcst's visiting order with where each one's subtree ends, and every later
    question about it or any node inside it is a slice of that list.
    """
    walk = _walk(node)
    i = walk.at[id(node)]
    of_kind = _OF_KIND.get(kind)
    if of_kind is None:
        of_kind = _OF_KIND[kind] = {}
    if i:
        return [n for n in walk.order[i:walk.ends[i]] if _is_a(type(n), kind, of_kind)]
    found = walk.kinds.get(kind)  # the whole tree: each rule asks for its calls, imports, functions
    if found is None:
        found = walk.kinds[kind] = [n for n in walk.order if _is_a(type(n), kind, of_kind)]
    return list(found)


def _is_a(cls: type, kind: type | tuple[type, ...], of_kind: dict[type, bool]) -> bool:
    """issubclass(cls, kind), remembered in `of_kind` (libcst's node classes are ABCs: slow to ask)."""
    found = of_kind.get(cls)
    if found is None:
        found = of_kind[cls] = issubclass(cls, kind)
    return found


_OF_KIND: dict[type | tuple[type, ...], dict[type, bool]] = {}


def parents(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's parent, as libcst's ParentNodeProvider gives it, from the same one walk."""
    walk = _walk(module)
    if walk.parent_of is None:
        order = walk.order
        walk.parent_of = {order[i]: order[p] for i, p in enumerate(walk.parent) if p >= 0}
    return walk.parent_of


class _Walk:
    """A tree's nodes in libcst's visiting order (source order), each one's parent and subtree end.

    libcst's own `visit` rebuilds and re-validates every node it passes, which costs more than
    parsing. This walk reads the children straight from each node's fields instead, in the order
    libcst visits them: learned once per node class by letting the class visit its children with
    a recorder (`on_visit_attribute` names each field as it goes).
    """

    def __init__(self, root: cst.CSTNode) -> None:
        self.order: list[cst.CSTNode] = []
        self.at: dict[int, int] = {}
        self.parent: list[int] = []
        self.parent_of: dict[cst.CSTNode, cst.CSTNode] | None = None
        self.tops: list[tuple[int, int, cst.CSTNode]] | None = None  # (walk index, body index, statement)
        self.kinds: dict[type | tuple[type, ...], list[cst.CSTNode]] = {}  # `find` over the whole tree
        order, at, parent = self.order, self.at, self.parent
        stack: list[tuple[cst.CSTNode, int]] = [(root, -1)]
        pop, push = stack.pop, stack.append
        while stack:
            node, up = pop()
            i = len(order)
            at[id(node)] = i
            order.append(node)
            parent.append(up)
            kids = _children(node)
            for k in range(len(kids) - 1, -1, -1):
                push((kids[k], i))
        ends = list(range(1, len(order) + 1))
        for i in range(len(order) - 1, 0, -1):  # a child's index is past its parent's: ends settle bottom-up
            p = parent[i]
            if ends[i] > ends[p]:
                ends[p] = ends[i]
        self.ends = ends


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """A node's children in libcst's visiting order (what `node.children` gives, without a rebuild)."""
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _learn(node)
    kids: list[cst.CSTNode] = []
    for name in fields[0]:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            kids.extend(value)
        elif _is_node(kind):
            kids.append(value)
    for name in fields[1]:  # fields libcst visits only when set (an f-string's format_spec)
        value = getattr(node, name)
        kind = type(value)
        if ((kind is tuple or kind is list) and value) or _is_node(kind):
            return _children_slowly(node)
    return kids


def _is_node(kind: type) -> bool:
    """issubclass(kind, cst.CSTNode), remembered: CSTNode is an ABC, and asking it is slow."""
    found = _NODE_TYPES.get(kind)
    if found is None:
        found = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return found


_NODE_TYPES: dict[type, bool] = {}


class _FieldOrder(cst.CSTVisitor):
    """Records the fields `root` visits, in order, without descending."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.fields: list[str] = []
        self.kids: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.kids.append(node)
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.root and attribute not in self.fields:
            self.fields.append(attribute)


def _learn(node: cst.CSTNode) -> tuple[list[str], list[str]]:
    """The fields a node class visits in order, and its other fields (visited only when set, or never)."""
    recorder = _FieldOrder(node)
    node._visit_and_replace_children(recorder)
    others = [f.name for f in dataclasses.fields(node) if f.name not in recorder.fields]
    found = _FIELDS[type(node)] = (recorder.fields, others)
    return found


def _children_slowly(node: cst.CSTNode) -> list[cst.CSTNode]:
    recorder = _FieldOrder(node)
    node._visit_and_replace_children(recorder)
    return recorder.kids


_FIELDS: dict[type, tuple[list[str], list[str]]] = {}


# The last trees walked, newest first. Each walk holds its root, so the ids of its nodes stay theirs.
_WALKS: list[_Walk] = []
_KEEP = 4


def _walk(node: cst.CSTNode) -> _Walk:
    for walk in _WALKS:
        i = walk.at.get(id(node))
        if i is not None and walk.order[i] is node:
            return walk
    walk = _Walk(node)
    _WALKS.insert(0, walk)
    del _WALKS[_KEEP:]
    return walk


def statement_of(module: cst.Module, node: cst.CSTNode) -> tuple[int, cst.CSTNode] | None:
    """The top-level statement of `module` that holds `node` (itself included), with its index in
    `module.body`; None for the module itself and what lies outside its statements."""
    walk = _walk(module)
    i = walk.at.get(id(node))
    if i is None or walk.order[i] is not node:
        return None
    if walk.tops is None:
        walk.tops = [(walk.at[id(s)], k, s) for k, s in enumerate(module.body)]
    j = bisect.bisect_right(walk.tops, i, key=lambda t: t[0]) - 1
    if j < 0:
        return None
    start, k, stmt = walk.tops[j]
    return (k, stmt) if i < walk.ends[start] else None


_ROW = re.compile(r"(\w+)\s*\[\s*:\s*,\s*None\s*\]")
_COL = re.compile(r"(\w+)\s*\[\s*None\s*,\s*:\s*\]")


def dot_layout(fn: cst.FunctionDef, names: dict[str, str]) -> tuple[str, bool]:
    """The operand layout of a kernel's first tl.dot as porter.perfmodel names it ("nt", "nn", ...),
    and whether it was read from the loads (False: assumed, "n" for an operand whose strides are
    both runtime arguments, as in Triton's matmul tutorial).

    An operand tile is K-contiguous when the index on its K dimension enters the pointer without a
    stride multiplier (`rk[:, None]` alone in `b_ptr + rk[:, None] + rn[None, :] * stride_bn`);
    `tl.trans(x)` or `x.T` in the dot swaps the loaded tile's dimensions.
    """
    dot = next((c for c in find(fn, cst.Call) if call_name(c, names) == "triton.language.dot"), None)
    if dot is None or len(dot.args) < 2:
        return "nn", False
    letters, read = [], True
    for index, arg in enumerate(dot.args[:2]):
        value, flipped = arg.value, False
        if isinstance(value, cst.Call) and call_name(value, names) in ("triton.language.trans",
                                                                       "triton.language.permute"):
            value, flipped = value.args[0].value, True
        elif isinstance(value, cst.Attribute) and value.attr.value == "T":
            value, flipped = value.value, True
        contiguous = _contiguous_dim(fn, value, names)  # 0: the loaded tile's rows, 1: its columns
        if contiguous is None:
            letters.append("n")
            read = False
            continue
        # A's tile is [M, K] (K is dimension 1), B's is [K, N] (K is dimension 0), before a transpose.
        k_dim = (1 if index == 0 else 0) ^ flipped
        k_major = contiguous == k_dim
        letters.append(("n" if k_major else "t") if index == 0 else ("t" if k_major else "n"))
    return "".join(letters), read


def _contiguous_dim(fn: cst.FunctionDef, value: cst.BaseExpression, names: dict[str, str]) -> int | None:
    """Which dimension of the tile loaded into `value` has unit stride, from its pointer expression."""
    if not isinstance(value, cst.Name):
        return None
    pointer = None
    for assign in find(fn, cst.Assign):
        if any(isinstance(t.target, cst.Name) and t.target.value == value.value for t in assign.targets):
            if isinstance(assign.value, cst.Call) and call_name(assign.value, names) == "triton.language.load":
                pointer = assign.value.args[0].value if assign.value.args else None
            break
    if isinstance(pointer, cst.Name):
        target = pointer.value
        pointer = next((a.value for a in find(fn, cst.Assign)
                        if any(isinstance(t.target, cst.Name) and t.target.value == target for t in a.targets)), None)
    if pointer is None:
        return None
    text = cst.Module([]).code_for_node(pointer)
    unit_stride = []
    for dim, pattern in ((0, _ROW), (1, _COL)):
        for m in pattern.finditer(text):
            before, after = text[:m.start()].rstrip(), text[m.end():].lstrip()
            if not before.endswith("*") and not after.startswith("*"):
                unit_stride.append(dim)
    return unit_stride[0] if len(set(unit_stride)) == 1 else None
