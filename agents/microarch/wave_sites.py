"""What the WAVE rules and the per-kernel wave model (wave_model.py) both ask of one site.

A site is a shuffle, ballot, mask, warp-sized array or warp-size constant. WAVE001-WAVE006 fix
sites one at a time; wave_model decides per kernel whether its wave assumptions become 64 lanes
or stay 32-lane groups, and asks the same questions (is this mask all 32 ones, can this reduction
loop be widened, what does this ballot narrow into). The answers live here, below both, so that
the rules gate their hits through wave_model and wave_model reads these without importing a rule.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.rules import Hit
from porter.state import Edit
from porter.syntax import SourceFile

# ---- WAVE001: full 32-lane masks ------------------------------------------------------------------


def is_full32(src: SourceFile, node) -> bool:
    """A full mask for 32 lanes: 0xffffffff with any suffix, or all ones held in a 32-bit type."""
    node, wide = patterns.unwrap(node), False
    cast = patterns.cast_target(src, node)
    if cast:
        target, operand = cast
        node, wide = patterns.unwrap(operand), target not in patterns.NARROW_INT
    ones = all_ones(src, node)
    if ones is None:
        return False
    value, suffix = ones
    return value == 0xFFFFFFFF or not (wide or "l" in suffix)


def all_ones(src: SourceFile, node) -> tuple[int, str] | None:
    """(value, literal suffix) when `node` is -1, ~0 or 0xffffffff."""
    if node.type == "number_literal":
        lit = patterns.literal(src.text(node))
        return lit if lit and lit[0] in (-1, 0xFFFFFFFF) else None
    if node.type == "unary_expression":
        op, arg = src.text(node.child_by_field_name("operator")), node.child_by_field_name("argument")
        lit = patterns.literal(src.text(arg)) if arg.type == "number_literal" else None
        if lit and (op, lit[0]) in (("~", 0), ("-", 1)):
            return -1, lit[1]
    return None


def named_full32(unit: SourceFile, view: patterns.View, mask) -> str:
    """The name of a constant defined in this file as a full 32-bit mask, or ''."""
    if mask.type != "identifier":
        return ""
    defs = patterns.definitions(unit).get(view.src.text(mask), [])
    if defs and all(is_full32(d.view.src, patterns.unwrap(d.value)) for d in defs):
        return view.src.text(mask)
    return ""


# ---- WAVE002: shuffle widths and reduction loops --------------------------------------------------


# (offset or source-lane argument index, width argument index); CUDA C++ Programming Guide, warp shuffle.
SHUFFLES = {
    "__shfl_sync": (None, 3), "__shfl_up_sync": (2, 3), "__shfl_down_sync": (2, 3), "__shfl_xor_sync": (2, 3),
    "__shfl": (None, 2), "__shfl_up": (1, 2), "__shfl_down": (1, 2), "__shfl_xor": (1, 2),
}


def _width_is_32(unit: SourceFile, view: patterns.View, callee: str, call) -> bool:
    _, width_at = SHUFFLES[callee]
    arguments = patterns.args(call)
    return width_at < len(arguments) and patterns.value(unit, view, arguments[width_at]) == 32


def _loop_fix(unit: SourceFile, view: patterns.View, callee: str, call) -> Hit | None:
    """A halving loop from the literal 16, or a doubling loop below the literal 32, around a shuffle's offset."""
    offset_at, _ = SHUFFLES[callee]
    arguments = patterns.args(call)
    if offset_at is None or offset_at >= len(arguments) or _width_is_32(unit, view, callee, call):
        return None
    offset = patterns.unwrap(arguments[offset_at])
    if offset.type != "identifier":
        return None
    src, name = view.src, view.src.text(offset)
    loop = patterns.enclosing(offset, "for_statement")
    while loop is not None:
        starts = dict(_initialised(src, loop.child_by_field_name("initializer")))
        if name in starts:
            break
        loop = patterns.enclosing(loop, "for_statement")
    if loop is None:
        return None
    first = patterns.unwrap(starts[name])
    first_value = patterns.literal(src.text(first)) if first.type == "number_literal" else None
    step = _step(src, loop.child_by_field_name("update"), name)
    bound = _bound(src, loop.child_by_field_name("condition"), name)
    if first_value and first_value[0] == 16 and step == "halves" and bound == ("low", 0):
        start, end = view.span(first)
        line = unit.line_col(start)[0]
        return Hit(start, end, f"the {callee} loop starts its offset at 16 (line {line}): a tree over 32 lanes that "
                   "reduces each half of a 64-lane wavefront separately; start at warpSize / 2",
                   edits=(Edit(start=start, end=end, text="warpSize / 2"),))
    if first_value and first_value[0] == 1 and step == "doubles" and bound and bound[0] == "high":
        literal = bound[1]
        limit = patterns.literal(src.text(literal))
        text = {(32, "<"): "warpSize", (16, "<="): "warpSize / 2"}.get((limit[0], bound[2])) if limit else None
        if text:
            start, end = view.span(literal)
            return Hit(start, end, f"the {callee} loop stops below 32 (line {unit.line_col(start)[0]}): a scan over "
                       "32 lanes never crosses the halves of a 64-lane wavefront; bound it by warpSize",
                       edits=(Edit(start=start, end=end, text=text),))
    return None


def _step(src: SourceFile, update, name: str) -> str:
    if update is None:
        return ""
    text = "".join(src.text(update).split())
    if text in (f"{name}/=2", f"{name}>>=1", f"{name}={name}/2", f"{name}={name}>>1"):
        return "halves"
    if text in (f"{name}*=2", f"{name}<<=1", f"{name}={name}*2", f"{name}={name}<<1", f"{name}+={name}"):
        return "doubles"
    return ""


def _bound(src: SourceFile, condition, name: str):
    """("low", 0) for `o > 0` / `o >= 1` / `o != 0`; ("high", literal node, op) for `d < 32` / `d <= 16`."""
    if condition is None or condition.type != "binary_expression":
        return None
    op = src.text(condition.child_by_field_name("operator"))
    left, right = patterns.unwrap(condition.child_by_field_name("left")), patterns.unwrap(condition.child_by_field_name("right"))
    if src.text(left) != name or right.type != "number_literal":
        return None
    value = patterns.literal(src.text(right))
    if value and (op, value[0]) in ((">", 0), (">=", 1), ("!=", 0)):
        return ("low", 0)
    if op in ("<", "<="):
        return ("high", right, op)
    return None


def _chain_fix(unit: SourceFile, view: patterns.View, callee: str, call) -> Hit | None:
    """An unrolled chain 16, 8, ...: add the 32 step, guarded so 32-lane targets skip it."""
    offset_at, _ = SHUFFLES[callee]
    arguments = patterns.args(call)
    if offset_at is None or offset_at >= len(arguments) or _width_is_32(unit, view, callee, call):
        return None
    offset = patterns.unwrap(arguments[offset_at])
    src = view.src
    lit = patterns.literal(src.text(offset)) if offset.type == "number_literal" else None
    statement = call.parent
    while statement is not None and statement.type not in ("expression_statement", "compound_statement",
                                                           "declaration", "for_statement", "return_statement"):
        statement = statement.parent
    if not lit or lit[0] != 16 or statement is None or statement.type != "expression_statement":
        return None
    following_offsets = _offsets(unit, view, statement.next_named_sibling, offset_at)
    previous_offsets = _offsets(unit, view, statement.prev_named_sibling, offset_at)
    if 8 not in following_offsets or 32 in previous_offsets:
        return None
    data = src.data
    pieces = [(offset.start_byte, offset.end_byte, "32")]
    maskless = (patterns.maskless_prefix(src, callee, call)
                if callee in patterns.MASKLESS and _drops_mask(unit, view, arguments) else None)
    if maskless:
        pieces.append(maskless)
    text, at = "", statement.start_byte
    for s, e, new in sorted(pieces):
        text += data[at:s].decode() + new
        at = e
    text += data[at:statement.end_byte].decode()
    line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
    indent = data[line_start:statement.start_byte].decode()
    indent = indent if not indent.strip() else " "
    start = view.base + statement.start_byte
    return Hit(start, start, f"an unrolled {callee} chain starts at offset 16 (line {unit.line_col(start)[0]}): "
               "on a 64-lane wavefront it needs a 32 step first; added, guarded by warpSize > 32",
               edits=(Edit(start=start, end=start, text=f"if (warpSize > 32) {text}\n{indent}"),))


def _offsets(unit: SourceFile, view: patterns.View, statement, offset_at: int) -> set[int | None]:
    """The offsets of the shuffles inside one statement; each statement searched once per file
    (a chain of thousands of shuffles in one expression must not cost a search per shuffle)."""
    if statement is None:
        return set()
    memo = unit.memo.setdefault("WAVE002.offsets", {})
    key = (view.base, statement.start_byte, statement.end_byte, offset_at)
    if key not in memo:
        memo[key] = {patterns.value(unit, view, patterns.args(c)[offset_at])
                     for _, c in patterns.calls(view, frozenset(SHUFFLES), statement)
                     if statement.start_byte <= c.start_byte < statement.end_byte and len(patterns.args(c)) > offset_at}
    return memo[key]


def _drops_mask(unit: SourceFile, view: patterns.View, arguments) -> bool:
    """The copied step drops its mask when WAVE001 or WAVE006 would drop the original's."""
    mask = patterns.unwrap(arguments[0]) if arguments else None
    return mask is not None and (is_full32(view.src, mask) or bool(named_full32(unit, view, mask))
                                 or every_lane(unit, view, mask))


def _start(unit: SourceFile, view: patterns.View, node) -> tuple[int | None, int | None]:
    """The offset's value, or for a loop variable the value it starts from (and that line)."""
    node = patterns.unwrap(node)
    if node.type != "identifier":
        return patterns.value(unit, view, node), None
    name = view.src.text(node)
    loop = patterns.enclosing(node, "for_statement")
    while loop is not None:
        init = loop.child_by_field_name("initializer")
        for target, first in _initialised(view.src, init):
            if target == name:
                return patterns.value(unit, view, first), unit.line_col(view.span(first)[0])[0]
        loop = patterns.enclosing(loop, "for_statement")
    return patterns.value(unit, view, node), None


def _initialised(src: SourceFile, init) -> Iterator[tuple[str, object]]:
    """(name, initial value) pairs of a for-loop initializer: `int o = 16` or `o = 16`."""
    if init is None:
        return
    if init.type == "declaration":
        for d in init.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                yield src.text(d.child_by_field_name("declarator")), d.child_by_field_name("value")
    elif init.type == "assignment_expression":
        yield src.text(init.child_by_field_name("left")), init.child_by_field_name("right")


# ---- WAVE003: warp-size constants -----------------------------------------------------------------


def _constant_fix(unit: SourceFile, d: patterns.Definition, wide_value: str = "64") -> tuple[Edit, ...]:
    """The #if/#else rewrite of one warp-size definition, or () where it is left to a person."""
    if d.view.base == 0 and d.decl is None:
        return ()
    if d.decl is not None:
        if d.decl.type != "declaration" or len(d.decl.children_by_field_name("declarator")) != 1:
            return ()
        at_file_scope = d.decl.parent is not None and d.decl.parent.type in ("translation_unit", "preproc_if",
                                                                               "preproc_ifdef", "preproc_else")
        if d.name == "warpSize" and at_file_scope:
            return ()
        span = patterns.line_span(unit, d.decl)
    else:
        line_start = unit.data.rfind(b"\n", 0, d.at) + 1
        line_end = unit.data.find(b"\n", d.at)
        line_end = len(unit.data) if line_end < 0 else line_end
        line = unit.data[line_start:line_end]
        span = (line_start, line_end) if line.lstrip().startswith(b"#") and not line.rstrip().endswith(b"\\") else None
    if span is None:
        return ()
    start, end = span
    value_start, value_end = d.view.span(d.value)
    if not start <= value_start < value_end <= end:
        return ()
    original = unit.data[start:end].decode()
    wide = unit.data[start:value_start].decode() + wide_value + unit.data[value_end:end].decode()
    return (Edit(start=start, end=end, text=f"#if {patterns.WAVE64_CONDITION}\n{wide}\n#else\n{original}\n#endif"),)


# ---- WAVE004: ballots narrowed to 32 bits ---------------------------------------------------------


_DECLARED = """[(declaration type: (_) @type declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)])
               (parameter_declaration type: (_) @type declarator: (identifier) @name)]"""


DROPS = "drops lanes 32-63"


def _narrowing(src: SourceFile, site) -> tuple[str, str, object]:
    """(how the ballot at `site` is narrowed, or ""; the variable it is stored in, or ""; the type node to widen, or None)."""
    parent = site.parent
    if parent is None:
        return "", "", None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == site:
        name = src.text(parent.child_by_field_name("declarator"))
        decl = parent.parent
        type_node = decl.child_by_field_name("type")
        declared = patterns.type_text(src, type_node)
        if declared not in patterns.NARROW_INT:
            return "", name, None
        return (f"storing it in `{declared} {name}` {DROPS}: use unsigned long long", name,
                type_node if _local_single(decl) else None)
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == site:
        name = src.text(parent.child_by_field_name("left"))
        decl = _declaration(src, parent, name)
        type_node = decl.child_by_field_name("type") if decl is not None else None
        declared = patterns.type_text(src, type_node)
        if declared not in patterns.NARROW_INT:
            return "", name, None
        return (f"assigning it to `{declared} {name}` {DROPS}: use unsigned long long", name,
                type_node if decl is not None and _local_single(decl) else None)
    if parent.type == "argument_list" and parent.parent.type == "call_expression":
        call = parent.parent
        callee = src.text(call.child_by_field_name("function"))
        if callee in patterns.BIT32:
            return f"{callee} reads only its low 32 bits and {DROPS}: use {patterns.BIT32[callee]}", "", None
        parent = call
    cast = patterns.cast_target(src, parent)
    if cast:
        return (f"casting it to `{cast[0]}` {DROPS}" if cast[0] in patterns.NARROW_INT else ""), "", None
    # A ballot returned through a 32-bit return type is WAVE010's: it widens the function with its callers.
    return "", "", None


def _local_single(decl) -> bool:
    """A declaration inside a function body, with one declarator: widening it changes nothing else's type."""
    return (decl.type == "declaration" and len(decl.children_by_field_name("declarator")) == 1
            and patterns.enclosing(decl, "function_definition") is not None)


def _declaration(src: SourceFile, use, name: str):
    """The last declaration of `name` before `use`, in its function, else in the file; None if unseen."""
    for scope in (patterns.enclosing(use, "function_definition"), src.tree.root_node):
        if scope is None:
            continue
        seen = [m for m in src.matches(_DECLARED, scope)
                if src.text(m["name"][0]) == name and m["name"][0].start_byte < use.start_byte]
        if seen:
            node = seen[-1]["type"][0].parent
            return node
    return None


# ---- WAVE005: arrays with one slot per warp -------------------------------------------------------


_SUBSCRIPTS = "(subscript_expression argument: (identifier) @array) @sub"


def _index_kinds(unit: SourceFile, array: str) -> dict[str, str]:
    """How `array` is indexed: {"lane": index text} for a lane number, {"warp": ...} for a warp number."""
    kinds: dict[str, str] = {}
    for m in unit.matches(_SUBSCRIPTS):
        if unit.text(m["array"][0]) != array:
            continue
        indices = m["sub"][0].child_by_field_name("indices")
        if indices is None:
            continue
        index = indices.named_children[0] if indices.named_child_count == 1 else indices
        text = " ".join(unit.text(indices).strip("[]").split())
        if patterns.is_lane_index(unit, index):
            kinds.setdefault("lane", text)
        elif patterns.mentions(unit, indices, patterns.WARP_ID_NAME) or _divides_threads(unit, index):
            kinds.setdefault("warp", text)
    return kinds


def _divides_threads(unit: SourceFile, node) -> bool:
    node = patterns.unwrap(node)
    return (node.type == "binary_expression" and unit.text(node.child_by_field_name("operator")) in ("/", ">>")
            and patterns.indexes_threads(unit, node.child_by_field_name("left")))


def _sizeof_taken(unit: SourceFile, array: str) -> bool:
    return any(array in unit.text(n) for n in unit.captures("(sizeof_expression) @s"))


def _counts_warps(unit: SourceFile, size) -> bool:
    """`X / 32`, `X >> 5`, `X / WARP_SIZE` with WARP_SIZE 32."""
    if size.type != "binary_expression":
        return False
    op, right = unit.text(size.child_by_field_name("operator")), patterns.unwrap(size.child_by_field_name("right"))
    divisor = patterns.value(unit, patterns.views(unit)[0], right)
    return (op, divisor) in (("/", 32), (">>", 5)) or (op == "/" and bool(_warp_size_name(unit, right)))


def _warp_size_name(unit: SourceFile, node) -> str:
    """A note such as ` (WARP_SIZE is 32)` when a warp-size constant in `node` is 32 here or is defined elsewhere."""
    for ident in unit.captures("(identifier) @i", node):
        name = unit.text(ident)
        if not patterns.WARP_SIZE_NAME.match(name):
            continue
        defs = patterns.definitions(unit).get(name)
        if not defs:
            return f" ({name} is defined outside this file; if it is 32)"
        if patterns.value(unit, patterns.views(unit)[0], ident) == 32:
            return f" ({name} is 32)"
    return ""


# ---- WAVE006: masks that name every lane ----------------------------------------------------------


EVERY_LANE_CALLS = frozenset({"__activemask"})


def every_lane(unit: SourceFile, view: patterns.View, mask, depth: int = 0) -> bool:
    """A 64-bit all-ones mask (~0ull, 0xffffffffffffffffull, (unsigned long long)-1, a constant of one) or __activemask()."""
    src, mask = view.src, patterns.unwrap(mask)
    if mask.type == "call_expression":
        fn = mask.child_by_field_name("function")
        return src.text(fn) in EVERY_LANE_CALLS and not patterns.args(mask)
    cast = patterns.cast_target(src, mask)
    if cast:
        target, operand = cast
        ones = all_ones(src, patterns.unwrap(operand))
        return target not in patterns.NARROW_INT and ones is not None and ones[0] == -1
    if mask.type == "number_literal":
        lit = patterns.literal(src.text(mask))
        return lit is not None and lit[0] == 0xFFFFFFFFFFFFFFFF
    if mask.type == "unary_expression":
        ones = all_ones(src, mask)
        return ones is not None and ones[0] == -1 and "ll" in ones[1]
    if mask.type == "identifier" and depth < 4:
        defs = patterns.definitions(unit).get(src.text(mask), [])
        return bool(defs) and all(every_lane(unit, d.view, d.value, depth + 1) for d in defs)
    return False
