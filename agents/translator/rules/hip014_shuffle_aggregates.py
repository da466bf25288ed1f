"""HIP014: a shuffle of a vector type (uint4, float2, ...) or a struct of them -> one shuffle per scalar component.

Why: CUDA's cooperative groups shuffle any trivially copyable type since CUDA 11
(`tile.shfl_xor(v, 1)` with `v` a `uint4` or a struct), and CUDA's __shfl*_sync take the vector
types through cuda_fp16/vector overloads. HIP's take integer and floating-point scalars only:
ROCm 6.3's thread_block_tile and coalesced_group shuffles `static_assert` "Neither an integer
or float type." (ROCm/clr release/rocm-rel-6.3.0.1, amd_hip_cooperative_groups.h) and
amd_warp_functions.h overloads __shfl* for int, unsigned, long, long long, float, double and
their unsigned kin, so a port that keeps the call does not compile (cuda-samples shfl_scan:
`tile.shfl_xor(result.y, 1)` on a `uint4` member of a struct). A shuffle moves each lane's
bytes as they are, so shuffling each scalar component with the same source lane is the same
operation; a ROCm programmer writes it that way.

Before:
    struct packed { uint4 lo, hi; };
    packed p = load(i);
    p.hi = tile.shfl_xor(p.hi, 1);
After:
    struct packed { uint4 lo, hi; };
    packed p = load(i);
    p.hi = [&] { auto porter_s = (p.hi); porter_s.x = tile.shfl_xor(static_cast<unsigned int>(porter_s.x), 1); porter_s.y = tile.shfl_xor(static_cast<unsigned int>(porter_s.y), 1); porter_s.z = tile.shfl_xor(static_cast<unsigned int>(porter_s.z), 1); porter_s.w = tile.shfl_xor(static_cast<unsigned int>(porter_s.w), 1); return porter_s; }();

Fix safety: safe. The value is read once, each component is shuffled with the call's own group,
offset, width and mask, in the order of the type's components, and the whole value is returned;
the other arguments are evaluated once per component, so a call whose other arguments have side
effects (`i++`) is reported, not rewritten. The value's type is read from its declaration in the
enclosing function (a local or a parameter) or the file, through members of structs the file or
a project header it includes defines; a value whose type is not found this way, or a struct
with a member that is neither a scalar nor a vector type, is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

# CUDA's vector types (CUDA C++ Programming Guide, "Built-in Vector Types") -> component type.
_BASES = {"char": "signed char", "uchar": "unsigned char", "short": "short", "ushort": "unsigned short",
          "int": "int", "uint": "unsigned int", "long": "long", "ulong": "unsigned long",
          "longlong": "long long", "ulonglong": "unsigned long long", "float": "float", "double": "double"}
VECTORS = {f"{b}{n}": (s, "xyzw"[:n]) for b, s in _BASES.items() for n in (1, 2, 3, 4)}
# Scalars HIP's shuffles take: a struct member of one of these needs no split.
SCALARS = frozenset({"char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned",
                     "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float",
                     "double", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t"})
TILE_SHUFFLES = frozenset({"shfl", "shfl_up", "shfl_down", "shfl_xor"})
# __shfl*(value, ...) and __shfl*_sync(mask, value, ...): the index of the value argument.
FREE_SHUFFLES = {f"__shfl{k}{s}": (1 if s else 0) for k in ("", "_up", "_down", "_xor") for s in ("", "_sync")}
_WANTED = re.compile(rb"\b(?:__)?shfl")
_MEMBER_CALLS = "(call_expression function: (field_expression field: (field_identifier) @member)) @call"
_FREE_CALLS = "(call_expression function: (identifier) @fn) @call"
STRUCT = re.compile(rb"\b(?:struct|class)\s+(\w+)\s*(?::[^{;]*)?\{([^{}]*)\}")
MEMBER = re.compile(r"^\s*(?:const\s+)?([A-Za-z_][\w ]*?)\s+(\w+(?:\s*,\s*\w+)*)\s*$")
SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)|\(")
MAX_COMPONENTS = 64


def shuffle_calls(unit: SourceFile) -> list[tuple[Node, int]]:
    """The shuffle calls `_MEMBER_CALLS` and `_FREE_CALLS` find (a thread_block_tile's
    `shfl*` methods, then the `__shfl*` functions), each with the index of its value argument.

    Found from the text: each whole word `shfl...` or `__shfl...` that is such a call's name, by
    its node. The two queries walked the whole tree for every call of the file: a fifth of the
    translator's time on a file that shuffles anywhere."""
    members: list[tuple[Node, int]] = []
    free: list[tuple[Node, int]] = []
    root = unit.tree.root_node
    data = unit.data
    for m in _names(data):
        name = m.group().decode()
        if name not in TILE_SHUFFLES and name not in FREE_SHUFFLES:
            continue
        paren = _OPEN.match(data, m.end())
        if paren is not None:
            # The smallest node over the name and the `(` after it is the call they make, if any:
            # found in one descent (Node.parent descends from the root again, twice for a member).
            call = root.descendant_for_byte_range(m.start(), paren.end())
            if call is None or call.type != "call_expression":
                continue
            function = call.child_by_field_name("function")
            if function is None:
                continue
            if function.type == "identifier":
                if function.start_byte == m.start() and function.end_byte == m.end() and name in FREE_SHUFFLES:
                    free.append((call, FREE_SHUFFLES[name]))
            elif function.type == "field_expression" and name in TILE_SHUFFLES:
                field = function.child_by_field_name("field")
                if field is not None and field.type == "field_identifier" and field.start_byte == m.start() \
                        and field.end_byte == m.end():
                    members.append((call, 0))
            continue
        node = root.descendant_for_byte_range(m.start(), m.end())
        if node is None or node.start_byte != m.start() or node.end_byte != m.end():
            continue
        parent = node.parent
        if parent is None:
            continue
        if node.type == "field_identifier" and parent.type == "field_expression" and name in TILE_SHUFFLES:
            call = parent.parent
            if (call is not None and call.type == "call_expression" and parent.child_by_field_name("field") == node
                    and call.child_by_field_name("function") == parent):
                members.append((call, 0))
        elif (node.type == "identifier" and parent.type == "call_expression" and name in FREE_SHUFFLES
                and parent.child_by_field_name("function") == node):
            free.append((parent, FREE_SHUFFLES[name]))
    return members + free


_NAMES = re.compile(rb"(?<![A-Za-z0-9_])(?:__)?shfl\w*")
_WORD_AT = re.compile(rb"(?:__)?shfl\w*")
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _names(data: bytes) -> Iterator[re.Match[bytes]]:
    """`_NAMES.finditer(data)`, found from each `shfl` by bytes.find: the regex's leading
    lookbehind made it try every position of the file."""
    at = data.find(b"shfl")
    while at >= 0:
        start = at - 2 if at >= 2 and data[at - 2:at] == b"__" else at
        m = None
        if start == 0 or data[start - 1] not in _WORD:
            m = _WORD_AT.match(data, start)
        if m is not None:
            yield m
            at = data.find(b"shfl", m.end())
        else:
            at = data.find(b"shfl", at + 4)
_OPEN = re.compile(rb"[ \t\r\n]*\(")
# How every vector type's name ends (float4: `t4`), as one class test per byte: where no such pair
# is in a file and it defines no struct, no shuffled value of it can be of an aggregate type.
if not all(name[-1] in "1234" and name[-2].isalpha() for name in VECTORS):
    raise ValueError("a vector type's name that does not end in a letter and 1-4: _VECTOR_END would miss it")
_VECTOR_END = re.compile(("[" + "".join(sorted({name[-2] for name in VECTORS})) + "][1-4]").encode())
# `_VECTOR_END.search(data) is not None` as `b"LD" in data.translate(_VECTOR_PAIR)`: each byte that
# can end a vector type's base name becomes L, each of 1-4 D, every other byte `.`; an L then a D is
# exactly where the regex matches. The regex stopped at every e, g, r and t of the file (a third of
# HIP014's time on a file without structs); translate and a two-byte find run in C.
_VECTOR_PAIR = bytes(b"L"[0] if bytes([b]) in {name[-2].encode() for name in VECTORS} else
                     b"D"[0] if b in b"1234" else b"."[0] for b in range(256))


@rule(id="HIP014", lang="cuda", severity="error", fix="safe", trigger=lambda data, ctx: b"shfl" in data)
def shuffle_aggregates(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if next(_names(unit.data), None) is None:  # `_WANTED.search`, from each `shfl` (the regex tried every byte)
        return
    structs = _structs(unit, ctx)
    if not structs and b"LD" not in unit.data.translate(_VECTOR_PAIR):  # `_VECTOR_END.search(...) is None`
        return  # a shuffled value's type is then a name of the file's bytes, and no vector type is one
    for call, at in sorted(shuffle_calls(unit), key=lambda f: f[0].start_byte):
        if not unit.is_code(call.start_byte):
            continue
        arguments = patterns.args(call)
        if len(arguments) <= at:
            continue
        value = arguments[at]
        ty = _type_of(unit, value, structs)
        if ty is None or (ty not in VECTORS and ty not in structs):
            continue  # a scalar, a template parameter, `auto`: nothing this rule can tell
        parts = _components(ty, structs, "")
        function = call.child_by_field_name("function")
        if function is None:
            continue  # a call with a parse error in it
        name = unit.text(function)
        if parts is None:
            yield Hit(call.start_byte, call.end_byte, f"{name} of a {ty}: HIP shuffles integer and floating-point "
                      "scalars only, and a member of this type is neither; left for a person")
            continue
        others = [unit.text(a) for i, a in enumerate(arguments) if i != at]
        said = (f"{name} of a {ty}: HIP shuffles integer and floating-point scalars only "
                f"(ROCm 6.3: \"Neither an integer or float type.\")")
        if any(SIDE_EFFECT.search(o) for o in others):
            yield Hit(call.start_byte, call.end_byte, f"{said}; the other arguments would be evaluated once per "
                      "component, so this call is left for a person")
            continue
        steps = []
        for path, scalar in parts:
            args = [unit.text(a) for a in arguments]
            args[at] = f"static_cast<{scalar}>(porter_s{path})"
            steps.append(f"porter_s{path} = {name}({', '.join(args)});")
        text = f"[&] {{ auto porter_s = ({unit.text(value)}); {' '.join(steps)} return porter_s; }}()"
        yield Hit(call.start_byte, call.end_byte, f"{said}: one shuffle per component ({len(parts)})",
                  edits=(Edit(call.start_byte, call.end_byte, text),))


def _structs(unit: SourceFile, ctx: RuleContext) -> dict[str, list[tuple[str, str]]]:
    """struct name -> [(member type, member name)] for the structs of this file and its project headers."""
    out: dict[str, list[tuple[str, str]]] = {}
    for src in (*ctx.included(unit), unit):
        if b"struct" not in src.data and b"class" not in src.data:
            continue  # STRUCT cannot match: its scan tries every position of the file
        for m in STRUCT.finditer(src.data):
            if not src.is_code(m.start()):
                continue
            members: list[tuple[str, str]] = []
            for decl in m.group(2).decode("utf-8", "replace").split(";"):
                decl = re.sub(r"//[^\n]*|/\*.*?\*/", " ", decl, flags=re.S).strip()
                if not decl:
                    continue
                if "(" in decl or "[" in decl or "=" in decl or (mm := MEMBER.match(decl)) is None:
                    members = []  # a method, an array or an initialiser: not a plain aggregate of values
                    break
                ty = " ".join(mm.group(1).split())
                members += [(ty, n.strip()) for n in mm.group(2).split(",")]
            if members:
                out[m.group(1).decode()] = members
    return out


def _components(ty: str, structs: dict[str, list[tuple[str, str]]], path: str,
                depth: int = 0) -> list[tuple[str, str]] | None:
    """(member path, scalar type) of every scalar in a value of type `ty`, or None if one is not a scalar."""
    if ty in SCALARS:
        return [(path, ty)]
    if ty in VECTORS:
        scalar, names = VECTORS[ty]
        return [(f"{path}.{c}", scalar) for c in names]
    if ty not in structs or depth > 4:
        return None
    out: list[tuple[str, str]] = []
    for member_ty, member in structs[ty]:
        sub = _components(member_ty, structs, f"{path}.{member}", depth + 1)
        if sub is None:
            return None
        out += sub
    return out if len(out) <= MAX_COMPONENTS else None


def _type_of(unit: SourceFile, node, structs: dict[str, list[tuple[str, str]]]) -> str | None:
    """The declared type of an identifier or a member access `a.b.c`, when the file shows it."""
    node = patterns.unwrap(node)
    if node.type == "identifier":
        return _declared(unit, node, unit.text(node))
    if node.type == "field_expression":
        base = node.child_by_field_name("argument")
        field = node.child_by_field_name("field")
        op = node.child_by_field_name("operator")
        if base is None or field is None or (op is not None and unit.text(op) != "."):
            return None
        outer = _type_of(unit, base, structs)
        for member_ty, member in structs.get(outer or "", []):
            if member == unit.text(field):
                return member_ty
    return None


def _declared(unit: SourceFile, at, name: str) -> str | None:
    """The type in the last declaration of `name` before `at` in its function (parameters included), else the file.

    The last match of `_declaration(name)` in that span, found from the end: each match ends at an
    occurrence of `name` (`_match_ending_at`), so the occurrences are tried from the last one back
    and each is matched from the few bytes before it, where the regex's leading lookbehind had sre
    try every byte of the function for every shuffle call."""
    func = _enclosing_function(unit, at)
    start, end = (func.start_byte, at.start_byte) if func is not None else (0, at.start_byte)
    data, word = unit.data, name.encode()
    decl = _declaration(name)
    c = data.rfind(word, start, end)
    while c >= 0:
        m = _match_ending_at(decl, data, start, end, c, len(word))
        if m is not None and unit.is_code(m.start()) and m.group(1).decode() not in ("return", "else", "case", "goto"):
            return m.group(1).decode()
        c = data.rfind(word, start, c + len(word) - 1)  # the occurrence before, overlapping or not
    return None


def _enclosing_function(unit: SourceFile, node: Node) -> Node | None:
    """`patterns.enclosing(node, "function_definition")`, found in one descent from the root (each
    Node.parent descends from the root again, so the climb cost the tree's depth squared)."""
    found = None
    at: Node | None = unit.tree.root_node
    while at is not None and at != node:
        if at.type == "function_definition":
            found = at
        at = at.child_with_descendant(node)
    return found if at is not None else patterns.enclosing(node, "function_definition")


@lru_cache(maxsize=1024)  # the names shuffled values have (a project shuffles a few)
def _declaration(name: str) -> re.Pattern[bytes]:
    """A declaration of `name`: group 1 its type, group 2 the name."""
    return re.compile(rb"(?<![\w.>])(?:const\s+)?(?:struct\s+)?([A-Za-z_]\w*)\s*(?:&\s*|\s)\s*("
                      + re.escape(name.encode()) + rb")\s*(?:[=;,)\[{]|$)")


_AFTER_NAME = re.compile(rb"\s*(?:[=;,)\[{]|$)")
_DECLARATION_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ \t\n\r\f\v&")
_IDENTIFIER_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _match_ending_at(decl: re.Pattern[bytes], data: bytes, start: int, end: int, c: int, n: int) -> re.Match[bytes] | None:
    """The match `decl.finditer(data, start, end)` yields whose name (group 2) is at `c`, if it yields one.

    Everything a match spans before its name is a type, `const`, `struct`, blanks or one `&`
    (`_DECLARATION_BYTES`), and what follows its name is blanks and a byte outside that set (or
    the span's end). So a match cannot begin before the run of those bytes that ends at `c`, any
    match that begins in that run ends at `c`, and no match of another occurrence overlaps it:
    the finditer's match at `c`, where there is one, is the match from the first byte of the run
    where `decl` matches."""
    if c <= start or data[c - 1] not in b" \t\n\r\f\v&" or _AFTER_NAME.match(data, c + n, end) is None:
        return None
    lo = c - 1
    while lo > start and data[lo - 1] in _DECLARATION_BYTES:
        lo -= 1
    for s in range(lo, c):
        if data[s] in _IDENTIFIER_START:
            m = decl.match(data, s, end)
            if m is not None:
                return m if m.start(2) == c else None
    return None
