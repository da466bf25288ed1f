"""LDS003: shared-memory layout with bank conflicts for 64-lane wavefronts.

Why: CUDA tiles are laid out for 32 banks and 32-thread warps. A transpose tile padded to
    `tile[32][33]` is conflict-free for a warp, but a CDNA wavefront is 64 lanes: with a
    (32, 8) block one wave spans two tile rows, and on gfx950 (64 banks?) the two half-waves
    land on the same banks (2-way conflicts). Unpadded stride-32 columns (`tile[threadIdx.x][k]`
    with rows of 32 floats, `s[threadIdx.x * 32 + k]`) put every lane of a phase on one bank
    (32-way on gfx942, 16- to 32-way on gfx950). porter scores each access with the LDS bank
    model (porter/lds.py: per-lane addresses of the block's first wave, 32 banks and 32/16/8
    lanes per phase on gfx942 for 4/8/16-byte accesses, 64 banks on gfx950) and prints the
    conflict degree of every access before and after the rewrite.

Before:
    __shared__ float tile[TILE][TILE + 1];            // block (32, 8)
    tile[threadIdx.y + j][threadIdx.x] = in[...];     // gfx950: 2-way
    out[...] = tile[threadIdx.x][threadIdx.y + j];    // gfx950: 2-way
After:
    __shared__ float tile[TILE][TILE];
    tile[threadIdx.y + j][threadIdx.x ^ ((threadIdx.y + j) % TILE)] = in[...];   // 1 on both
    out[...] = tile[threadIdx.x][(threadIdx.y + j) ^ (threadIdx.x % TILE)];      // 1 on both

Fix safety: safe for a 2-D array declared in the kernel whose every use is a full `a[i][j]`
    subscript with side-effect-free indices, whose code uses only the unpadded columns (the
    padding column is never touched: that is what padding for banks means), and when the model
    shows fewer summed conflicts on gfx950 and no more on gfx942. The rewrite is the new padding,
    or the XOR swizzle col ^ (row % W) on rows of W (a power of two) elements, a bijection on
    each row. Anything else (1-D arrays, pointer uses, unknown block shape) is reported only.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter import lds
from porter.kernel_facts import Eval, Kernel, SharedArray, block_shape, constant, kernels
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

RULE = "LDS003"
_PRIMARY = {"identifier", "field_expression", "number_literal", "parenthesized_expression", "subscript_expression",
            "call_expression"}
_SIDE_EFFECTS = "[(update_expression) (assignment_expression) (call_expression)] @e"


class _Access:
    """One full subscript of a shared array, with each lane's indices."""

    def __init__(self, node: Node, indices: list[Node], cells: list[tuple[int, ...] | None] | None) -> None:
        self.node, self.indices, self.cells = node, indices, cells


def _accesses(unit: SourceFile, k: Kernel, a: SharedArray, block) -> tuple[list[_Access], bool]:
    """The array's subscripts in the kernel, and whether every use of its name is a full subscript."""
    body = k.fn.child_by_field_name("body")
    rank = len(a.dims)
    found, whole = [], True
    for ident in unit.captures("(identifier) @i", body):
        if unit.text(ident) != a.name or ident.parent == a.declarator or patterns.enclosing(ident, "declaration") == a.decl:
            continue
        indices, node = [], ident
        while node.parent is not None and node.parent.type == "subscript_expression" and \
                node.parent.child_by_field_name("argument") == node:
            node = node.parent
            idx = node.child_by_field_name("indices")
            items = [c for c in idx.named_children if c.type != "comment"] if idx is not None else []
            if len(items) != 1:
                break
            indices.append(items[0])
        escapes = node.parent is not None and node.parent.type == "pointer_expression"  # &a[i][j]: the layout leaks
        if len(indices) != rank or escapes:
            whole = False
            continue
        found.append(_Access(node, indices, _cells(unit, k, indices, block)))
    return found, whole


def _cells(unit: SourceFile, k: Kernel, indices: list[Node], block) -> list[tuple[int, ...] | None] | None:
    bx, by, bz = block
    out: list[tuple[int, ...] | None] = []
    for lane in range(lds.WAVE):
        if lane >= bx * by * bz:
            out.append(None)
            continue
        ev = Eval(unit, k.fn, {"x": lane % bx, "y": (lane // bx) % by, "z": lane // (bx * by)}, block, uniform=0)
        values = tuple(ev(i) for i in indices)
        if None in values:
            return None
        out.append(values)
    return out


def _name(unit: SourceFile, x: _Access) -> str:
    return f"`{' '.join(unit.text(x.node).split())}` (line {unit.line_col(x.node.start_byte)[0]})"


def _paren(unit: SourceFile, node: Node) -> str:
    text = unit.text(node)
    return text if node.type in _PRIMARY and node.type != "call_expression" else f"({text})"


def _width_text(unit: SourceFile, size: Node, logical: int, pad: int) -> str:
    """The column size rewritten to logical + pad, keeping the original's constant name."""
    size = patterns.unwrap(size)
    if size.type == "number_literal":
        return str(logical + pad)
    base = unit.text(size)
    if size.type == "binary_expression" and unit.text(size.child_by_field_name("operator")) == "+" and \
            constant(unit, size.child_by_field_name("left")) == logical:
        base = unit.text(size.child_by_field_name("left"))
    elif constant(unit, size) != logical:
        base = str(logical)
    return base if pad == 0 else f"{base} + {pad}"


def _name_of(unit: SourceFile, size: Node, logical: int) -> str:
    text = _width_text(unit, size, logical, 0)
    return text if patterns.unwrap(size).type != "number_literal" and text.isidentifier() else str(logical)


@rule(id=RULE, lang="cuda", severity="warning", fix="safe",
      trigger=any_of(["__global__"]))
def bank_conflicts(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for k in kernels(unit):
        body_text = unit.text(k.fn.child_by_field_name("body"))
        block = block_shape(unit, k.name)
        if block is None:
            if any(s in body_text for s in ("threadIdx.y", "threadIdx.z", "hipThreadIdx_y", "hipThreadIdx_z")):
                continue  # lanes' (x, y) unknown without the block shape
            block = (lds.WAVE, 1, 1)
        for a in k.arrays:
            if a.extern or a.bytes is None or a.elem_bytes not in (1, 2, 4, 8, 16) or len(a.dims) not in (1, 2):
                continue
            if patterns.enclosing(a.decl, "function_definition") != k.fn:
                continue  # a file-scope array may be shared by several kernels
            accesses, whole = _accesses(unit, k, a, block)
            known = [x for x in accesses if x.cells is not None]
            if not known:
                continue
            yield from (_one_d(unit, a, known) if len(a.dims) == 1 else
                        _two_d(unit, a, known, whole and len(known) == len(accesses)))


def _one_d(unit: SourceFile, a: SharedArray, known: list[_Access]) -> Iterator[Hit]:
    lines = []
    worst = 1
    for x in known:
        addrs = [None if c is None else c[0] * a.elem_bytes for c in x.cells]
        d = {t.arch: lds.conflicts(addrs, a.elem_bytes, t).degree for t in lds.TARGETS}
        worst = max(worst, *d.values())
        lines.append(f"{_name(unit, x)} gfx950 {d['gfx950']}-way, gfx942 {d['gfx942']}-way")
    if worst > 1:
        yield Hit(a.declarator.start_byte, a.declarator.end_byte,
                  f"__shared__ {a.elem} {a.name}[{a.dims[0]}]: bank conflicts for 64-lane waves: {'; '.join(lines)}; "
                  "pad the row stride (e.g. 32 -> 33 elements) or XOR-swizzle the column; porter rewrites 2-D tiles only")


def _two_d(unit: SourceFile, a: SharedArray, known: list[_Access], fixable: bool) -> Iterator[Hit]:
    rows, cols = a.dims
    used_cols = max(c[1] for x in known for c in x.cells if c is not None)
    logical = cols - 1 if (cols - 1) & (cols - 2) == 0 and cols - 1 >= 16 and used_cols < cols - 1 else cols
    current = lds.Layout(rows, cols, a.elem_bytes)
    cells = [[None if c is None else (c[0], c[1]) for c in x.cells] for x in known]
    now, best = lds.best_rewrite(current, logical, cells)
    if max(now.degrees["gfx950"] + now.degrees["gfx942"]) <= 1:
        return
    shown = f"__shared__ {a.elem} {a.name}[{rows}][{cols}]"
    names = [_name(unit, x) for x in known]
    if best is None:
        per = "; ".join(f"{n} gfx950 {d9}-way, gfx942 {d2}-way"
                        for n, d9, d2 in zip(names, now.degrees["gfx950"], now.degrees["gfx942"]))
        yield Hit(a.declarator.start_byte, a.declarator.end_byte,
                  f"{shown}: bank conflicts for 64-lane waves: {per}; no padding of 0-4 elements nor XOR swizzle "
                  "scores better")
        return
    per = "; ".join(f"{n} gfx950 {b9} -> {a9}, gfx942 {b2} -> {a2}" for n, b9, a9, b2, a2 in zip(
        names, now.degrees["gfx950"], best.degrees["gfx950"], now.degrees["gfx942"], best.degrees["gfx942"]))
    lay = best.layout
    change = (f"XOR swizzle col ^ (row % {lay.xor}) on rows of {lay.row_elems}" if lay.xor
              else f"rows padded to {lay.row_elems} elements")
    saved = current.bytes - lay.bytes
    bytes_note = f", {abs(saved):,} B {'less' if saved > 0 else 'more'} LDS" if saved else ""
    message = (f"{shown}: conflict degree per access (before -> after {change}{bytes_note}): {per}")
    edits = _rewrite(unit, a, known, lay, logical) if fixable else None
    if edits is None:
        yield Hit(a.declarator.start_byte, a.declarator.end_byte,
                  message + "; not rewritten: the array is used other than as a[i][j] with plain indices")
        return
    yield Hit(a.declarator.start_byte, a.declarator.end_byte, message, edits=tuple(edits))


def _rewrite(unit: SourceFile, a: SharedArray, known: list[_Access], lay: lds.Layout, logical: int) -> list[Edit] | None:
    size = a.dim_nodes[1]
    edits = [Edit(size.start_byte, size.end_byte, _width_text(unit, size, logical, lay.row_elems - logical), RULE)]
    if not lay.xor:
        return edits
    k = _name_of(unit, size, logical)
    for x in known:
        row, col = x.indices
        if unit.captures(_SIDE_EFFECTS, row) or unit.captures(_SIDE_EFFECTS, col):
            return None
        # col ^ (row % W): % binds tighter than ^, and ^ looser than + - * / << >>, so only the operands need parentheses
        edits.append(Edit(col.start_byte, col.end_byte, f"{_paren(unit, col)} ^ ({_paren(unit, row)} % {k})", RULE))
    return edits
