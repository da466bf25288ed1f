"""The one kernel inventory of a CUDA file: kernels, their shared arrays, launches, block shapes.

The scan (porter.scan) lists each file's kernels and their static shared memory from it; the LDS
and launch rules (LDS001-LDS003, WAVE100-WAVE101) read the rest: each kernel with its
`__shared__` arrays and their sizes, each `<<<>>>` launch with its block shape and dynamic
shared memory, and an evaluator for constant and per-lane integer expressions (literals,
#define and constexpr constants, sizeof, thread indices).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.syntax import SourceFile

# Sizes of the scalar types that shared arrays are commonly declared with (bytes, as on both vendors).
TYPE_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
              "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__hip_bfloat16": 2, "__nv_bfloat16": 2,
              "int16_t": 2, "uint16_t": 2, "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4,
              "int32_t": 4, "uint32_t": 4, "double": 8, "long long": 8, "unsigned long long": 8,
              "int64_t": 8, "uint64_t": 8, "float2": 8, "float4": 16, "int4": 16, "double2": 16}

TYPE_BYTES_LDS = {**TYPE_BYTES, "int2": 8, "uint2": 8, "uint4": 16, "long": 8, "unsigned long": 8,
                  "size_t": 8, "double4": 32, "float3": 12, "int3": 12, "half2": 4, "__half2": 4}
THREAD_INDEX = {"threadIdx.x": "x", "threadIdx.y": "y", "threadIdx.z": "z",
                "hipThreadIdx_x": "x", "hipThreadIdx_y": "y", "hipThreadIdx_z": "z"}
BLOCK_DIM = {"blockDim.x": 0, "blockDim.y": 1, "blockDim.z": 2,
             "hipBlockDim_x": 0, "hipBlockDim_y": 1, "hipBlockDim_z": 2}
MAX_DYNAMIC = {"hipFuncAttributeMaxDynamicSharedMemorySize", "cudaFuncAttributeMaxDynamicSharedMemorySize"}
SET_ATTRIBUTE = {"hipFuncSetAttribute", "cudaFuncSetAttribute"}

_KERNELS = "(function_definition) @fn"
_SHARED = "(declaration (type_qualifier) @q) @decl"
_LAUNCHES = ("(call_expression function: [(identifier) @name (template_function name: (identifier) @name)]"
             " (kernel_call_syntax) @config) @call")
_CALLS = "(call_expression function: (identifier) @fn) @call"
_SUBSCRIPTS = "(subscript_expression) @sub"


# --- evaluation -----------------------------------------------------------------------------


class Eval:
    """Integers that expressions hold: compile-time constants, or one lane's value.

    `lane` maps "x"/"y"/"z" to that lane's threadIdx; `block` is blockDim when known.
    `uniform` is what a wave-uniform unknown (a parameter, blockIdx, a loop bound) is taken to be:
    None when only compile-time constants will do (array sizes), 0 when scoring one wave's
    addresses (a uniform offset shifts every lane alike, which does not change bank conflicts
    of whole-element accesses). Local variables are followed to their one initializer.
    """

    def __init__(self, unit: SourceFile, fn: Node | None = None, lane: dict[str, int] | None = None,
                 block: tuple[int, int, int] | None = None, uniform: int | None = None) -> None:
        self.unit, self.fn, self.lane, self.block, self.uniform = unit, fn, lane or {}, block, uniform
        self.file = patterns.views(unit)[0]

    def __call__(self, node: Node | None, depth: int = 0) -> int | None:
        if node is None or depth > 24:
            return None
        node = patterns.unwrap(node)
        t, text = node.type, self.unit.text(node)
        if t == "number_literal":
            lit = patterns.literal(text)
            return lit[0] if lit else None
        if t in ("field_expression", "identifier") and (key := " ".join(text.split()).replace(" ", "")) in THREAD_INDEX:
            return self.lane.get(THREAD_INDEX[key])  # no lane: not a compile-time constant
        if t in ("field_expression", "identifier") and key in BLOCK_DIM:
            return self.block[BLOCK_DIM[key]] if self.block else self.uniform
        if t == "field_expression":
            return self.uniform  # blockIdx.x, gridDim.x, a struct member: the same in every lane
        if t in ("identifier", "type_identifier"):  # a macro argument may parse as a type name
            return self._name(text, depth)
        if t == "sizeof_expression":
            ty = node.child_by_field_name("type")
            return TYPE_BYTES_LDS.get(patterns.type_text(self.unit, ty)) if ty is not None else None
        if t == "cast_expression":
            return self(node.child_by_field_name("value"), depth + 1)
        if t == "call_expression" and (cast := patterns.cast_target(self.unit, node)):
            return self(cast[1], depth + 1)
        if t == "unary_expression":
            v = self(node.child_by_field_name("argument"), depth + 1)
            op = self.unit.text(node.child_by_field_name("operator"))
            return {"-": -v, "~": ~v, "+": v}.get(op) if v is not None else None
        if t == "binary_expression":
            left = self(node.child_by_field_name("left"), depth + 1)
            right = self(node.child_by_field_name("right"), depth + 1)
            op = self.unit.text(node.child_by_field_name("operator"))
            if left is None or right is None:
                return None
            if op in ("/", "%"):
                return (int(left / right) if op == "/" else left - int(left / right) * right) if right else None
            if op in ("<<", ">>") and not 0 <= right < 64:
                return None
            return {"+": left + right, "-": left - right, "*": left * right, "<<": left << right,
                    ">>": left >> right, "&": left & right, "|": left | right, "^": left ^ right}.get(op)
        return None

    def _name(self, name: str, depth: int) -> int | None:
        if self.fn is not None:
            inits = local_initializers(self.unit, self.fn).get(name)
            if inits is not None:
                # One name declared in several scopes (two `for (int j = 0; ...)` loops) is taken
                # when every declaration starts it at the same value.
                values = {self(i, depth + 1) if i is not None else None for i in inits}
                return values.pop() if len(values) == 1 else None
        # Constants of other functions are not in scope here.
        defs = [d for d in patterns.definitions(self.unit).get(name, [])
                if d.decl is None or patterns.enclosing(d.decl, "function_definition") in (None, self.fn)]
        seen = {Eval(self.unit, None, self.lane, self.block, self.uniform)(d.value, depth + 1) if d.view.base == 0
                else patterns.value(self.unit, d.view, d.value) for d in defs}
        if defs:
            return seen.pop() if len(seen) == 1 else None
        return self.uniform


def local_initializers(unit: SourceFile, fn: Node) -> dict[str, list[Node | None]]:
    """Names declared inside a function (parameters too), each with its initializers (None: none)."""
    key = f"lds.locals.{fn.start_byte}"
    if key not in unit.memo:
        found: dict[str, list[Node | None]] = {}
        body = fn.child_by_field_name("body")
        for d in unit.captures("(init_declarator declarator: (identifier) @n value: (_) @v) @d", body) if body else []:
            if d.type == "init_declarator":
                value = d.child_by_field_name("value")
                if value.type in ("argument_list", "initializer_list"):
                    value = value.named_children[0] if value.named_child_count == 1 else None
                found.setdefault(unit.text(d.child_by_field_name("declarator")), []).append(value)
        for d in unit.captures("(declaration declarator: (identifier) @n) @d", body) if body else []:
            if d.type == "identifier":
                found.setdefault(unit.text(d), []).append(None)
        unit.memo[key] = found
    return unit.memo[key]


def constant(unit: SourceFile, node: Node | None) -> int | None:
    """The compile-time value of an expression, following #define and const/constexpr names."""
    return Eval(unit)(node)


# --- inventory ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SharedArray:
    name: str
    decl: Node  # the declaration
    declarator: Node  # the outermost array_declarator
    elem: str
    elem_bytes: int | None
    dims: tuple[int | None, ...]  # outermost first: t[R][C] is (R, C)
    dim_nodes: tuple[Node, ...]
    extern: bool

    @property
    def bytes(self) -> int | None:
        if self.extern or self.elem_bytes is None or None in self.dims:
            return None
        total = self.elem_bytes
        for d in self.dims:
            total *= d
        return total


@dataclass(frozen=True)
class Kernel:
    name: str
    fn: Node
    name_node: Node
    arrays: tuple[SharedArray, ...]  # static and extern, declared in the body or at file scope and used


def shared_arrays(unit: SourceFile, scope: Node) -> list[SharedArray]:
    found = []
    for m in unit.matches(_SHARED, scope):
        decl = m["decl"][0]
        if unit.text(m["q"][0]) != "__shared__":
            continue
        extern = any(c.type == "storage_class_specifier" and unit.text(c) == "extern" for c in decl.children)
        elem = patterns.type_text(unit, decl.child_by_field_name("type"))
        for declarator in decl.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator.type != "array_declarator":
                continue
            dims, nodes, inner = [], [], declarator
            while inner.type == "array_declarator":
                size = inner.child_by_field_name("size")
                if size is not None:
                    dims.append(constant(unit, size))
                    nodes.append(size)
                inner = inner.child_by_field_name("declarator")
            found.append(SharedArray(unit.text(inner), decl, declarator, elem, TYPE_BYTES_LDS.get(elem),
                                     tuple(reversed(dims)), tuple(reversed(nodes)), extern))
    return found


def kernels(unit: SourceFile) -> list[Kernel]:
    if unit.lang != "cuda":
        return []
    if "lds.kernels" not in unit.memo:
        file_scope = [a for a in shared_arrays(unit, unit.tree.root_node)
                      if patterns.enclosing(a.decl, "function_definition") is None]
        found = []
        for fn in unit.captures(_KERNELS):
            if not any(c.type == "__global__" for c in fn.children):
                continue
            declarator = fn.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            body = fn.child_by_field_name("body")
            if declarator is None or body is None:
                continue
            name_node = declarator.child_by_field_name("declarator")
            used = {unit.text(n) for n in unit.captures("(identifier) @i", body)}
            arrays = shared_arrays(unit, body) + [a for a in file_scope if a.name in used]
            found.append(Kernel(unit.text(name_node).split("::")[-1], fn, name_node, tuple(arrays)))
        unit.memo["lds.kernels"] = found
    return unit.memo["lds.kernels"]


def static_shared_bytes(unit: SourceFile, kernel: Kernel) -> int | None:
    """Bytes of the kernel's static __shared__ arrays; None when a size is not a constant."""
    total = 0
    for a in kernel.arrays:
        if a.extern:
            continue
        if a.bytes is None:
            return None
        total += a.bytes
    return total


@dataclass(frozen=True)
class Launch:
    kernel: str
    call: Node
    config: tuple[Node, ...]  # grid, block[, shared bytes[, stream]]


def launches(unit: SourceFile) -> tuple[Launch, ...]:
    """The file's kernel launches, in source order; found once per file (`SourceFile.memo`): the wave
    model asks for each kernel's, and a query over the whole file per kernel was a quarter of the
    microarch agent's time on bench/translate.py's corpus."""
    if unit.lang != "cuda":
        return ()
    if "lds.launches" not in unit.memo:
        unit.memo["lds.launches"] = tuple(
            Launch(unit.text(m["name"][0]), m["call"][0], tuple(c for c in m["config"][0].named_children
                                                                if c.type != "comment"))
            for m in unit.matches(_LAUNCHES))
    return unit.memo["lds.launches"]  # type: ignore[return-value]


def dim3_value(unit: SourceFile, node: Node, depth: int = 0) -> tuple[int, int, int] | None:
    """(x, y, z) of a block-shape expression: an integer, dim3(a, b, c), or a name declared as either."""
    node = patterns.unwrap(node)
    if depth > 4:
        return None
    if node.type == "call_expression" and unit.text(node.child_by_field_name("function")) == "dim3":
        return _dims(unit, patterns.args(node))
    if node.type == "identifier":
        for decl in _dim3_declarations(unit):
            for d in decl.children_by_field_name("declarator"):
                if d.type == "init_declarator" and unit.text(d.child_by_field_name("declarator")) == unit.text(node):
                    value = d.child_by_field_name("value")
                    if value.type in ("argument_list", "initializer_list"):
                        return _dims(unit, [c for c in value.named_children if c.type != "comment"])
                    return dim3_value(unit, value, depth + 1)
                # `dim3 block(TILE, ROWS);` with macro arguments parses as a function declaration
                if d.type == "function_declarator" and unit.text(d.child_by_field_name("declarator")) == unit.text(node):
                    params = [p for p in d.child_by_field_name("parameters").named_children if p.type != "comment"]
                    if all(p.type == "parameter_declaration" and p.named_child_count == 1 for p in params):
                        return _dims(unit, [p.named_children[0] for p in params])
    v = constant(unit, node)
    return (v, 1, 1) if v is not None else None


def _dims(unit: SourceFile, items: list[Node]) -> tuple[int, int, int] | None:
    values = [constant(unit, a) for a in items]
    if not 1 <= len(values) <= 3 or None in values:
        return None
    return tuple(values + [1] * (3 - len(values)))  # type: ignore[return-value]


def _dim3_declarations(unit: SourceFile) -> list[Node]:
    """The file's `dim3 ...;` declarations, in source order, found once per file."""
    if "lds.dim3" not in unit.memo:
        unit.memo["lds.dim3"] = [decl for decl in unit.captures("(declaration type: (type_identifier) @t) @d")
                                 if decl.type == "declaration" and unit.text(decl.child_by_field_name("type")) == "dim3"]
    return unit.memo["lds.dim3"]  # type: ignore[return-value]


def block_shape(unit: SourceFile, kernel: str) -> tuple[int, int, int] | None:
    """The block shape of every launch of `kernel` in this file, when they agree and are constant."""
    shapes = {dim3_value(unit, launch.config[1]) for launch in launches(unit)
              if launch.kernel == kernel and len(launch.config) >= 2}
    return shapes.pop() if len(shapes) == 1 and None not in shapes else None


def _function_named(unit: SourceFile, node: Node) -> str | None:
    """The kernel a function-pointer argument names: k, &k, k<T>, (const void*)k, reinterpret_cast<...>(k)."""
    for _ in range(8):
        node = patterns.unwrap(node)
        fn = node.child_by_field_name("function") if node.type == "call_expression" else None
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif fn is not None and fn.type == "template_function" and len(patterns.args(node)) == 1 and unit.text(
                fn.child_by_field_name("name")) in ("reinterpret_cast", "static_cast", "const_cast"):
            node = patterns.args(node)[0]
        elif node.type == "pointer_expression" and unit.text(node.child_by_field_name("operator")) == "&":
            node = node.child_by_field_name("argument")
        elif node.type == "template_function":
            node = node.child_by_field_name("name")
        else:
            break
    return unit.text(node) if node.type == "identifier" else None


@dataclass(frozen=True)
class DynamicSize:
    bytes: int
    node: Node  # the expression that gives it
    how: str  # "launch" or "hipFuncSetAttribute"


def dynamic_sizes(unit: SourceFile, kernel: str) -> list[DynamicSize]:
    """Constant dynamic shared-memory sizes given to `kernel` in this file."""
    found = []
    for launch in launches(unit):
        if launch.kernel == kernel and len(launch.config) >= 3 and (v := constant(unit, launch.config[2])):
            found.append(DynamicSize(v, launch.config[2], "launch"))
    for fn, call in patterns.calls(patterns.views(unit)[0], frozenset(SET_ATTRIBUTE)):
        a = patterns.args(call)
        if len(a) == 3 and unit.text(a[1]) in MAX_DYNAMIC and _function_named(unit, a[0]) == kernel:
            if (v := constant(unit, a[2])) is not None:
                found.append(DynamicSize(v, a[2], fn))
    return found


def kib(n: int) -> str:
    return f"{n:,} B ({n / 1024:g} KiB)"
