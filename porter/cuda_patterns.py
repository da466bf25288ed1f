"""Tree-sitter patterns over CUDA C++: what the kernel inventory (porter.kernel_facts) and the
microarch agent's wavefront rules (WAVE###, PTX###, LDS###) ask of a file.

The rules run on the translator's output (HIP names, `<<<>>>` launches kept) and keep asking the
same questions: which warp intrinsic is this call, what integer does this expression or name hold
(`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`), does this operand index threads.

Macro bodies are raw text in the tree (`preproc_arg`). `views()` parses each body with the file's
grammar, so a shuffle inside `#define WARP_REDUCE(v) ...` is found like any other; a view's
offsets are relative to its body and `View.span` turns them back into file offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from porter.syntax import SourceFile, int_literal

# Intrinsics whose first argument is a lane mask (CUDA C++ Programming Guide, warp functions).
MASKED_SYNC = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync", "__syncwarp",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
})
# Their 64-lane results on CDNA: HIP's amd_warp_functions.h returns unsigned long long.
BALLOTS = frozenset({"__ballot", "__ballot_sync", "__activemask", "__match_any_sync", "__match_all_sync"})
WARP_INTRINSICS = MASKED_SYNC | BALLOTS | {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__any", "__all"}
# Integer types of 32 bits or fewer on the LP64 targets porter builds for.
NARROW_INT = frozenset({"unsigned", "unsigned int", "int", "signed", "signed int", "uint32_t", "int32_t", "uint"})
# The 64-bit type a widened lane mask gets: uint64_t where the code spells its widths, else unsigned long long.
WIDER = {"uint32_t": "uint64_t", "int32_t": "uint64_t"}
# 32-bit bit operations and their 64-bit forms (CUDA Math API integer intrinsics; GCC builtins).
BIT32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll",
         "__builtin_popcount": "__builtin_popcountll", "__builtin_ffs": "__builtin_ffsll",
         "__builtin_clz": "__builtin_clzll", "__builtin_ctz": "__builtin_ctzll"}
# 64-bit forms that give the 32-bit answer for a value below 2^32: a safe rename.
SAME_ANSWER = frozenset({"__popc", "__ffs", "__builtin_popcount", "__builtin_ffs", "__builtin_ctz"})
FULL_MASK_64 = "0xffffffffffffffffull"
# The *_sync calls that have a mask-less HIP form. The mask-less forms are in every ROCm release
# (HIP C++ language extensions, "Warp cross-lane functions"); the *_sync forms came in ROCm 6.2,
# stayed behind -DHIP_ENABLE_WARP_SYNC_BUILTINS until ROCm 7.0, and can be switched off there with
# -DHIP_DISABLE_WARP_SYNC_BUILTINS. On a wavefront, which runs in lockstep, a call whose mask names
# every (active) lane is the mask-less call: that is the rewrite porter makes.
MASKLESS = {"__shfl_sync": "__shfl", "__shfl_up_sync": "__shfl_up", "__shfl_down_sync": "__shfl_down",
            "__shfl_xor_sync": "__shfl_xor", "__ballot_sync": "__ballot", "__any_sync": "__any",
            "__all_sync": "__all"}
SHUFFLES = frozenset({"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                      "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"})
# A warp-size constant right on each target. clang predefines __GFX9__ in the device pass for
# gfx9 (CDNA: wave64; gfx942, gfx950) and __HIP__ in both passes of a HIP build; the host pass
# cannot know the device, and porter builds for gfx9, so HIP host code sees 64 as well (what
# PyTorch's C10_WARP_SIZE does for launch bounds). nvcc defines none of them: 32. Not used:
# __AMDGCN_WAVEFRONT_SIZE (deprecated in clang 20, no longer predefined by clang 22) and
# warpSize (not a compile-time constant from ROCm 7.0).
WAVE64_CONDITION = "defined(__GFX9__) || (defined(__HIP__) && !defined(__HIP_DEVICE_COMPILE__))"

WARP_SIZE_NAME = re.compile(r"(?i)^(k_?)?(warp_?(size|sz|width|lanes)|(threads|lanes)_?per_?warp)$")
# Names that say "this is about warps": lane/warp ids and their usual spellings.
# log2 of the warp size (5 on NVIDIA): LOG2_WARP_SIZE, LOG_WARP, WARP_SHIFT, kLog2WarpSize, WARP_BITS
LOG2_WARP_NAME = re.compile(r"(?i)^(k_?)?(log2?_?warp(_?(size|sz|width))?|warp_?(size_?)?(shift|bits|log2?))$")
WARP_ID_NAME = re.compile(r"(?i)^((lane|warp)(_?(id|idx|index|num))?|wid)$")
LANE_NAME = re.compile(r"(?i)^lane(_?(id|idx|index|num))?$")
THREAD_INDEX_NAME = re.compile(r"(?i)^(threadIdx|hipThreadIdx_[xyz]|tid[xyz]?|t[xyz]|thread_?(id|idx)(_?[xyz])?|local_?tid)$")

_CALLS = "(call_expression function: (identifier) @fn) @call"
_MACRO_BODIES = """[(preproc_def name: (identifier) @name value: (preproc_arg) @body)
                    (preproc_function_def name: (identifier) @name value: (preproc_arg) @body)]"""
_OBJECT_MACROS = "(preproc_def name: (identifier) @name value: (preproc_arg) @body)"
_CONSTANTS = """[(declaration declarator: (init_declarator declarator: (identifier) @name value: (_) @value)) @decl
                 (optional_parameter_declaration declarator: (identifier) @name default_value: (_) @value) @decl]"""
_BINARY = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "<<": int.__lshift__, ">>": int.__rshift__,
           "&": int.__and__, "|": int.__or__, "^": int.__xor__}


@dataclass(frozen=True)
class View:
    """The file, or one macro body parsed on its own."""

    src: SourceFile
    base: int  # file offset of src's first byte

    def span(self, node: Node) -> tuple[int, int]:
        return self.base + node.start_byte, self.base + node.end_byte


@dataclass(frozen=True)
class Definition:
    """A named constant: `#define N <expr>`, `const`/`constexpr T N = <expr>`, `template <int N = <expr>>`."""

    name: str
    at: int  # file offset of the defined name
    view: View  # where `value` lives
    value: Node
    decl: Node | None  # the declaration; None for a #define


def views(unit: SourceFile) -> list[View]:
    """The file first, then the body of every #define."""
    if "microarch.views" not in unit.memo:
        found = [View(unit, 0)]
        for m in unit.matches(_MACRO_BODIES):
            body = m["body"][0]
            found.append(View(SourceFile(unit.path, unit.data[body.start_byte:body.end_byte], unit.lang), body.start_byte))
        unit.memo["microarch.views"] = found
    return unit.memo["microarch.views"]


def calls(view: View, names: frozenset[str], node: Node | None = None) -> list[tuple[str, Node]]:
    """(callee, call_expression) for every call of one of `names` (inside `node`, if given), in source order.

    The whole view's calls are found once (`SourceFile.memo`): several rules ask a file's every
    view for their own callees (WAVE001, WAVE002, WAVE006)."""
    if node is not None:
        return [(view.src.text(m["fn"][0]), m["call"][0]) for m in view.src.matches(_CALLS, node)
                if view.src.text(m["fn"][0]) in names]
    found = view.src.memo.get("patterns.calls")
    if found is None:
        found = view.src.memo["patterns.calls"] = [(view.src.text(m["fn"][0]), m["call"][0])
                                                   for m in view.src.matches(_CALLS)]
    return [(callee, call) for callee, call in found if callee in names]  # type: ignore[union-attr]


def args(call: Node) -> list[Node]:
    arglist = call.child_by_field_name("arguments")
    return [a for a in arglist.named_children if a.type != "comment"] if arglist else []


def unwrap(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def enclosing(node: Node, kind: str) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != kind:
        parent = parent.parent
    return parent


def type_text(src: SourceFile, node: Node | None) -> str:
    return " ".join(src.text(node).split()) if node is not None else ""


def cast_target(src: SourceFile, node: Node) -> tuple[str, Node] | None:
    """(target type, operand) of `(T)x` or `static_cast<T>(x)`."""
    if node.type == "cast_expression":
        return type_text(src, node.child_by_field_name("type")), node.child_by_field_name("value")
    fn = node.child_by_field_name("function") if node.type == "call_expression" else None
    if fn is not None and fn.type == "template_function" and src.text(fn.child_by_field_name("name")) == "static_cast":
        targs, operands = fn.child_by_field_name("arguments").named_children, args(node)
        if len(targs) == 1 and len(operands) == 1:
            return type_text(src, targs[0]), operands[0]
    return None


def literal(text: str) -> tuple[int, str] | None:
    """(value, lower-case suffix) of a C integer literal, or None (porter.syntax.int_literal)."""
    return int_literal(text)


def definitions(unit: SourceFile) -> dict[str, list[Definition]]:
    """Constants the file defines, by name; a #define counts when its body is one expression."""
    if "microarch.definitions" not in unit.memo:
        found: dict[str, list[Definition]] = {}
        bodies = {v.base: v for v in views(unit)[1:]}
        for m in unit.matches(_OBJECT_MACROS):
            body = bodies[m["body"][0].start_byte]
            expr = _single_expression(body.src.tree.root_node)
            if expr is not None:
                name = m["name"][0]
                found.setdefault(unit.text(name), []).append(Definition(unit.text(name), name.start_byte, body, expr, None))
        for m in unit.matches(_CONSTANTS):
            decl, name = m["decl"][0], m["name"][0]
            quals = {unit.text(c) for c in decl.children if c.type == "type_qualifier"}
            template_default = decl.parent is not None and decl.parent.type == "template_parameter_list"
            if template_default or quals & {"const", "constexpr"}:
                found.setdefault(unit.text(name), []).append(
                    Definition(unit.text(name), name.start_byte, View(unit, 0), m["value"][0], decl))
        unit.memo["microarch.definitions"] = found
    return unit.memo["microarch.definitions"]


def value(unit: SourceFile, view: View, node: Node, depth: int = 0) -> int | None:
    """The integer an expression holds, following this file's constants; None when unknown or ambiguous.

    Each (expression, depth) is worked out once per file (`SourceFile.memo`): a name defined twice
    (`#if ... #else`) in terms of a name defined twice doubles the walk at every step of the chain,
    and a driver-API header of enumerators took 9.4 million calls (cuda-samples' matrixMulDynlinkJIT:
    15 s). The depth is part of the key, so a chain cut at the depth limit is cut where it was."""
    memo = unit.memo.get("microarch.values")
    if memo is None:
        memo = unit.memo["microarch.values"] = {}
    node = unwrap(node)
    key = (id(view.src), node.id, depth)
    if key not in memo:
        memo[key] = _value(unit, view, node, depth)
    return memo[key]  # type: ignore[return-value]


def _value(unit: SourceFile, view: View, node: Node, depth: int) -> int | None:
    src = view.src
    if depth > 16:  # a macro that names itself
        return None
    if node.type == "number_literal":
        lit = literal(src.text(node))
        return lit[0] if lit else None
    if node.type == "identifier":
        seen = {value(unit, d.view, d.value, depth + 1) for d in definitions(unit).get(src.text(node), [])}
        return seen.pop() if len(seen) == 1 else None
    if node.type == "unary_expression":
        operand = value(unit, view, node.child_by_field_name("argument"), depth + 1)
        op = src.text(node.child_by_field_name("operator"))
        return {"-": -operand, "~": ~operand, "+": operand}.get(op) if operand is not None else None
    if node.type == "binary_expression":
        left = value(unit, view, node.child_by_field_name("left"), depth + 1)
        right = value(unit, view, node.child_by_field_name("right"), depth + 1)
        op = src.text(node.child_by_field_name("operator"))
        if left is None or right is None:
            return None
        if op in ("/", "%"):
            return (left // right if op == "/" else left % right) if right else None
        return _BINARY[op](left, right) if op in _BINARY and (op not in ("<<", ">>") or 0 <= right < 64) else None
    return None


def mentions(src: SourceFile, node: Node, names: re.Pattern[str]) -> bool:
    """Whether an identifier matching `names` occurs in the subtree."""
    return any(names.match(src.text(n)) for n in src.captures("(identifier) @i", node))


def indexes_threads(src: SourceFile, node: Node) -> bool:
    """Whether the subtree reads a thread index: threadIdx.*, hipThreadIdx_*, tid, lane, warp_id, ..."""
    return mentions(src, node, THREAD_INDEX_NAME) or mentions(src, node, WARP_ID_NAME)


def _single_expression(root: Node) -> Node | None:
    """The expression a macro body consists of (tree-sitter wraps it in a statement or an ERROR)."""
    items = [c for c in root.named_children if c.type != "comment"]
    if len(items) != 1 or items[0].type not in ("expression_statement", "ERROR"):
        return None
    inner = [c for c in items[0].named_children if c.type != "comment"]
    return inner[0] if len(inner) == 1 else None


def maskless_prefix(src: SourceFile, callee: str, call: Node) -> tuple[int, int, str] | None:
    """The edit that turns `__shfl_down_sync(mask, v, o)` into `__shfl_down(v, o)`, in `src` offsets.

    Only the callee and the mask argument (with the comma after it) are replaced, so edits other
    rules make inside the remaining arguments do not overlap this one.
    """
    arguments = args(call)
    if callee not in MASKLESS or len(arguments) < 2:
        return None
    fn = call.child_by_field_name("function")
    arglist = call.child_by_field_name("arguments")
    return fn.start_byte, arguments[1].start_byte, MASKLESS[callee] + src.data[arglist.start_byte:arguments[0].start_byte].decode()


def maskless_text(src: SourceFile, callee: str, call: Node) -> str:
    """The whole call written in its mask-less form (the call's own text when it has none)."""
    edit = maskless_prefix(src, callee, call)
    if edit is None:
        return src.text(call)
    start, end, text = edit
    return text + src.data[end:call.end_byte].decode()


def line_span(src: SourceFile, node: Node) -> tuple[int, int] | None:
    """(start of the line, end of the line without its newline) when `node` is alone on its line(s)."""
    data = src.data
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    end = data.find(b"\n", node.end_byte)
    end = len(data) if end < 0 else end
    before, after = data[start:node.start_byte], data[node.end_byte:end].strip()
    if before.strip() or (after and not after.startswith((b"//", b"/*"))):
        return None
    return start, end


def is_lane_index(src: SourceFile, node: Node) -> bool:
    """A lane number: a lane name, or a thread index taken `% warpSize`, `% 32`, `& 31`, `& (warpSize - 1)`."""
    node = unwrap(node)
    if node.type == "identifier":
        return bool(LANE_NAME.match(src.text(node)))
    if node.type == "binary_expression":
        op = src.text(node.child_by_field_name("operator"))
        right = " ".join(src.text(node.child_by_field_name("right")).split())
        if (op, right) in (("%", "warpSize"), ("&", "(warpSize - 1)")):
            return True  # a lane number by construction, whatever is divided
        if (op, right) in (("%", "32"), ("&", "31"), ("&", "0x1f")):
            return indexes_threads(src, node.child_by_field_name("left"))
    return False
