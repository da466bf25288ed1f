"""MFMA002: inline PTX mma.sync m16n8k16 (f16/bf16 inputs, f32 accumulate) rewritten to an MFMA helper.

Why: `asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ...")` is PTX: clang's AMDGPU
    backend cannot assemble it, so the port fails to build for gfx950. porter_mma_m16n8k16_{f16,bf16}
    (shims/compat/mfma_gfx950.h, added by SHIM020) takes and returns the same per-thread registers
    (PTX ISA fragment layouts for m16n8k16: a 4 x b32, b 2 x b32, c/d 4 x f32) and runs one
    v_mfma_f32_16x16x32 for the two warps of a wave.

    Warp -> wave: the wave's halves (lanes 0-31, 32-63) are two warps, each issuing its own
    mma.sync. A half computes its D^T (8 x 16) = B^T (8 x 16) A^T (16 x 16) + C^T as 8 rows of
    the MFMA: P = B^T in A-operand rows 8h..8h+7, Q = A^T in B-operand K rows 16h..16h+15, so the
    two warps' products share one instruction and no value crosses halves. The registers are
    moved between NVIDIA's and AMD's lane layouts with ds_bpermute inside the half; the block,
    its warps and everything the kernel does with the registers stay as they were.

    That uses half of the instruction's K. Pairing two k16 steps of one m16n8 accumulator cannot
    fill it: the two warps' operands are independent, and one 16x16x32 product holds two
    independent products only block-diagonally (half its K or half its outputs each). Two k16 steps
    of two n8 tiles that share the A fragment can: per warp they are D (16 x 16) = [A0 A1] (16 x 32)
    B (32 x 16), one MFMA, so a K loop nest over k steps and n8 tiles (the asm statement, or a
    function or function-like macro whose body is that asm, called with `acc[n], a[k], b[k][n]` or
    `acc[n][0], ..., a[k][0], ...`, both loops
    counting from 0 by 1 to an even constant) steps both by 2 and calls
    porter_mma_m16n16k32_{f16,bf16}: 2 MFMAs per wave where 4 ran. A count porter cannot evaluate
    (a template parameter) is tested: `if ((kTiles) % 2 == 0) { paired } else { as it was }`. The same nest unrolled by hand
    (consecutive statements, each accumulator stepped by a0 then a1) becomes the paired calls.
    Other mma.sync loops (odd trip counts, one accumulator, a K loop that also loads
    the next step's registers, as flash-attention kernels write it) stay unpaired, with a note
    saying why.

Before:
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int k = 0; k < 2; ++k)
      for (int n = 0; n < 4; ++n)
        mma_bf16(acc[n], a[k], b[k][n], acc[n]);  // the function above
After:
    porter_mma_m16n8k16_bf16(d[0], d[1], d[2], d[3], a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3]);
    for (int k = 0; k < 2; k += 2)
      for (int n = 0; n < 4; n += 2)
        porter_mma_m16n16k32_bf16(acc[n], acc[n + 1], a[k], a[k + 1], b[k][n], b[k][n + 1], b[k + 1][n], b[k + 1][n + 1]);

    An asm a `#define` holds (`#define HMMA16816(RD0, ...) asm volatile(...)`) is rewritten in the
    macro: it then calls the helper.

Fix safety: safe for m16n8k16 .row.col with f16.f16 or bf16.bf16 inputs and f32 C/D: exact
    (same register contents out, float accumulation). Paired loops: the same products into the
    same accumulators, each accumulator's two k steps summed in the MFMA's order; paired only
    where the loop body is the one mma and nothing else, the accumulator is both C and D, and the
    loops visit every (k, n) pair of the original. Other mma.sync shapes and types are reported,
    not rewritten. The same helper serves --matrix rocwmma (rocWMMA has no per-register mma.sync
    counterpart).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_STATEMENTS = "(expression_statement (gnu_asm_expression)) @s"
_FUNCTIONS = "(function_definition) @f"
_BLOCKS = "(compound_statement) @b"
_MACROS = "(preproc_function_def) @m"
_LOOPS = "(for_statement) @f"
# An operand register `base[i]`; the base an identifier with subscripts and members (`acc[n]`,
# `frag_b[k][n]`, `c[n].x`).
_ELEMENT = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*(?:\.|->)\s*\w+|\s*\[[^\[\]]+\])*)\s*\[\s*(\d+)\s*\]\s*$")
_BASE = re.compile(r"^\s*[A-Za-z_]\w*(?:\s*(?:\.|->)\s*\w+|\s*\[[^\[\]]+\])*\s*$")
# A loop bound the paired form may test again (`(kTiles) % 2 == 0`): names, literals, arithmetic.
_PURE_BOUND = re.compile(r"[\w\s+\-*/%()<>:]+")
_WRITES = re.compile(r"\+\+|--|=|\(")  # an index the paired call would evaluate more often


@dataclass(frozen=True)
class Step:
    """One mma.sync m16n8k16 as a K loop nest issues it: its statement and the bases of its registers."""

    node: Node  # the statement (asm, or a call of a wrapper whose body is the asm)
    dtype: str  # f16 or bf16
    acc: str  # C and D: `acc[n]` holds d[0..3]
    a: str
    b: str
    asm: bool  # the statement is the asm itself (MFMA002 rewrites it here, not unpaired)


@rule(id="MFMA002", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["mma.sync"]))
def mma_sync_ptx(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if b"mma.sync" not in unit.data:
        return
    wrappers = _wrappers(unit)
    paired: set[int] = set()
    inner_loops: set[int] = set()  # the inner loops of the nests seen (loops come outer first)
    for loop in unit.captures(_LOOPS):
        nest = _nest(unit, loop, wrappers)
        if nest is None:
            body = _only(_body(loop))
            step = _step(unit, body, wrappers) if body is not None else None
            if isinstance(step, Step) and loop.start_byte not in inner_loops:
                yield Hit(loop.start_byte, loop.start_byte + 3, f"mma.sync loop left unpaired: {_lone(unit, loop, step)}",
                          severity=Severity.info)
            continue
        inner_loops.add(_only(_body(loop)).start_byte)
        if isinstance(nest, str):
            yield Hit(loop.start_byte, loop.start_byte + 3, f"mma.sync K loop left unpaired: {nest}",
                      severity=Severity.info)
            continue
        paired.add(nest[2].node.start_byte)
        yield _paired(unit, *nest)
    for run in _runs(unit, wrappers):
        hit = _paired_run(unit, run)
        if hit is not None:
            paired.update(s.node.start_byte for s in run)
            yield hit
    # The file's statements, then the asm a #define holds (`#define HMMA16816(RD0, ...) asm volatile(...)`:
    # the macro becomes a call of the helper; its uses are left as they are).
    for view in patterns.views(unit):
        for statement in view.src.captures(_STATEMENTS):
            if view.base == 0 and statement.start_byte in paired:
                continue
            asm = mfma.parse_asm(view.src, statement)
            if asm is None or not asm.mnemonic.startswith("mma.sync"):
                continue
            if view.base:  # a macro body: replace the asm expression, keep whatever follows it
                statement = next(c for c in statement.named_children if c.type == "gnu_asm_expression")
            start, end = view.span(statement)
            m = mfma.MMA.match(asm.mnemonic)
            shape = tuple(len(g) for g in asm.groups)
            if m is None or m.group(1) != m.group(2) or shape != (4, 4, 2, 4):
                yield Hit(start, end, f"`{asm.mnemonic}`: no gfx950 MFMA helper for this mma.sync form",
                          severity=Severity.error)
                continue
            call = f"porter_mma_m16n8k16_{m.group(1)}({', '.join(x for g in asm.groups for x in g)})"
            where = " (in a #define)" if view.base else ""
            yield Hit(start, end,
                      f"`{asm.mnemonic}`{where} -> porter_mma_m16n8k16_{m.group(1)} (v_mfma_f32_16x16x32_{m.group(1)})",
                      edits=(Edit(start, end, call + ("" if view.base else ";")),))


def _registers(asm: mfma.AsmStatement) -> tuple[str, str, str, str] | None:
    """(dtype, acc, a, b) bases of an accumulating m16n8k16 asm whose groups are base[0..n-1], C == D."""
    m = mfma.MMA.match(asm.mnemonic)
    if m is None or m.group(1) != m.group(2) or tuple(len(g) for g in asm.groups) != (4, 4, 2, 4):
        return None
    bases = []
    for group in asm.groups:
        found = [_ELEMENT.match(x) for x in group]
        if any(f is None for f in found) or [int(f.group(2)) for f in found] != list(range(len(group))):
            return None
        names = {" ".join(f.group(1).split()) for f in found}
        if len(names) != 1:
            return None
        bases.append(names.pop())
    if any(_WRITES.search(x) for x in bases):
        return None
    d, a, b, c = bases
    return (m.group(1), d, a, b) if d == c else None


def _wrappers(unit: SourceFile) -> dict[str, tuple[list[str], mfma.AsmStatement]]:
    """What a call may stand for: functions whose body is one asm statement (`mma16816(d, a, b, c)`
    with `"=f"(d[0])`...) and function-like macros whose body is one (`#define HMMA16816(RD0, ...)
    asm volatile(...)`): name -> (parameter names, the asm with its operands in those names)."""
    found = {}
    for fn in unit.captures(_FUNCTIONS):
        decl, body = fn.child_by_field_name("declarator"), fn.child_by_field_name("body")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        if decl is None or body is None:
            continue
        name = decl.child_by_field_name("declarator")
        params = decl.child_by_field_name("parameters")
        stmts = [x for x in body.named_children if x.type != "comment"]
        if name is None or params is None or len(stmts) != 1 or stmts[0].type != "expression_statement":
            continue
        asm = mfma.parse_asm(unit, stmts[0])
        if asm is not None and asm.mnemonic.startswith("mma.sync"):
            names = [_param_name(unit, p) for p in params.named_children if p.type == "parameter_declaration"]
            found[unit.text(name)] = (names, asm)
    bodies = {v.base: v for v in patterns.views(unit)[1:]}
    for macro in unit.captures(_MACROS):
        value, params = macro.child_by_field_name("value"), macro.child_by_field_name("parameters")
        view = bodies.get(value.start_byte) if value is not None else None
        stmts = [x for x in view.src.tree.root_node.named_children if x.type != "comment"] if view else []
        if params is None or len(stmts) != 1 or stmts[0].type != "expression_statement":
            continue
        asm = mfma.parse_asm(view.src, stmts[0])
        if asm is not None and asm.mnemonic.startswith("mma.sync"):
            found[unit.text(macro.child_by_field_name("name"))] = ([unit.text(x) for x in params.named_children], asm)
    return found


def _param_name(unit: SourceFile, param: Node) -> str:
    decl = param.child_by_field_name("declarator")
    while decl is not None and decl.type != "identifier":
        inner = decl.child_by_field_name("declarator")
        decl = inner if inner is not None else next((c for c in decl.named_children if c.type != "type_qualifier"), None)
    return unit.text(decl) if decl is not None else ""


def _step(unit: SourceFile, stmt: Node, wrappers) -> Step | str | None:
    """The mma of a loop body statement: a Step, a reason it cannot pair, or None (no mma)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    expr = stmt.named_children[0]
    if expr.type == "gnu_asm_expression":
        asm = mfma.parse_asm(unit, stmt)
        if asm is None or not asm.mnemonic.startswith("mma.sync"):
            return None
        regs = _registers(asm)
        if regs is None:
            return "the asm's registers are not base[0..n] arrays with C the same as D, or not m16n8k16 f16/bf16"
        return Step(stmt, *regs, asm=True)
    if expr.type != "call_expression":
        return None
    fn = expr.child_by_field_name("function")
    if fn is None or unit.text(fn) not in wrappers:
        return None
    names, asm = wrappers[unit.text(fn)]
    args = [" ".join(unit.text(a).split()) for a in patterns.args(expr)]
    if len(args) != len(names) or any(_WRITES.search(a) for a in args):
        return f"`{unit.text(fn)}` is called with another argument count, or an argument that writes or calls"
    by_name = dict(zip(names, args))
    at_call = tuple(tuple(_substitute(x, by_name) for x in g) for g in asm.groups)
    regs = _registers(mfma.AsmStatement(asm.node, asm.mnemonic, at_call, asm.volatile))
    if regs is None:
        return (f"`{unit.text(fn)}`'s registers at this call are not base[0..n] arrays with C the same as D, "
                "or it is not m16n8k16 f16/bf16")
    return Step(stmt, *regs, asm=False)


def _substitute(text: str, values: dict[str, str]) -> str:
    """`text` with each parameter name replaced by the call's argument."""
    return re.sub(r"(?<![\w.>])[A-Za-z_]\w*", lambda m: values.get(m.group(), m.group()), text)


def _body(loop: Node) -> Node | None:
    """A for loop's body. `for (...)` then `#pragma unroll` then an unbraced statement parses as a loop
    with an empty body (a MISSING `;`) followed by the pragma and the statement: that statement."""
    body = loop.child_by_field_name("body")
    if body is None or body.type != "expression_statement" or body.named_child_count or not _missing(body):
        return body
    nxt = loop.next_named_sibling
    while nxt is not None and nxt.type in ("preproc_call", "comment"):
        nxt = nxt.next_named_sibling
    return nxt if nxt is not None and nxt.prev_named_sibling is not None and nxt.prev_named_sibling.type == "preproc_call" else None


def _missing(node: Node) -> bool:
    return any(c.is_missing for c in node.children)


def _only(body: Node | None) -> Node | None:
    """The one statement of a loop body (braces, comments and #pragma lines aside)."""
    if body is None:
        return None
    if body.type != "compound_statement":
        return body
    stmts = [x for x in body.named_children if x.type not in ("comment", "preproc_call")]
    return stmts[0] if len(stmts) == 1 else None


def _counter(unit: SourceFile, loop: Node) -> tuple[str, int | None, str] | None:
    """(var, trip count, bound text) of `for (T var = 0; var < bound; ++var / var++ / var += 1)`;
    count None when the bound is not a constant the file defines (a template parameter, a variable)."""
    init, cond, update = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    if init is None or cond is None or update is None or init.type != "declaration":
        return None
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    if len(decls) != 1 or unit.text(decls[0].child_by_field_name("value") or decls[0]) != "0":
        return None
    var = unit.text(decls[0].child_by_field_name("declarator"))
    if cond.type != "binary_expression" or unit.text(cond.child_by_field_name("operator")) != "<":
        return None
    if unit.text(cond.child_by_field_name("left")) != var:
        return None
    step = " ".join(unit.text(update).split())
    if step not in (f"++{var}", f"{var}++", f"{var} += 1", f"{var}+=1"):
        return None
    bound = cond.child_by_field_name("right")
    return var, patterns.value(unit, patterns.View(unit, 0), bound), " ".join(unit.text(bound).split())


def _nest(unit: SourceFile, outer: Node, wrappers):
    """(outer, inner, step, (outer var, inner var), k var, n var) of a pairable K loop nest, a reason why an mma loop nest
    is not pairable, or None when `outer` is not the outer loop of a nest around one mma."""
    inner = _only(_body(outer))
    if inner is None or inner.type != "for_statement":
        return None
    stmt = _only(_body(inner))
    step = _step(unit, stmt, wrappers) if stmt is not None else None
    if step is None or isinstance(step, str):
        return step
    counters = [_counter(unit, x) for x in (outer, inner)]
    if any(c is None for c in counters):
        return "the loops do not count from 0 by 1 to a bound"
    (ov, on, ob), (iv, inn, ib) = counters
    uses = {x: {v for v in (ov, iv) if _mentions(x, v)} for x in (step.acc, step.a)}
    if not uses[step.acc]:
        return ("one accumulator, no second n8 tile sharing the A registers (two k steps of one m16n8 tile "
                "cannot fill a v_mfma_f32_16x16x32: the two warps' operands are independent)")
    if len(uses[step.acc]) != 1 or len(uses[step.a]) != 1 or uses[step.acc] == uses[step.a]:
        return "the accumulator must follow one loop (n8 tiles) and the A registers the other (k steps)"
    nvar = uses[step.acc].pop()
    kvar = ov if nvar == iv else iv
    guards = []
    for var, count, bound in ((ov, on, ob), (iv, inn, ib)):
        what = "k steps" if var == kvar else "n8 tiles sharing the A registers"
        if count is not None and (count <= 0 or count % 2):
            return f"the {what} over `{var}` are an odd count ({count})"
        if count is None:
            if not _PURE_BOUND.fullmatch(bound):
                return f"the {what} over `{var}` run to `{bound}`, which the paired loop cannot test for evenness"
            guards.append(f"({bound}) % 2 == 0")
    return outer, inner, step, (ov, iv), kvar, nvar, tuple(guards)


def _lone(unit: SourceFile, loop: Node, step: Step) -> str:
    """Why a single loop around one mma is not paired."""
    counter = _counter(unit, loop)
    var = counter[0] if counter else ""
    if var and _mentions(step.acc, var) and not _mentions(step.a, var):
        return (f"a loop over n8 tiles (`{var}`) whose k steps come from an enclosing loop that does more "
                "(loads): pairing needs two k steps' registers in one nest")
    if var and _mentions(step.a, var) and not _mentions(step.acc, var):
        return (f"a loop over k steps (`{var}`) into one accumulator: two k steps of one m16n8 tile cannot "
                "fill a v_mfma_f32_16x16x32 (the two warps' operands are independent)")
    return "the loop's accumulator and A registers do not follow it as n8 tiles or k steps"


def _mentions(text: str, var: str) -> bool:
    return re.search(rf"(?<![\w.>]){re.escape(var)}(?!\w)", text) is not None


def _next(text: str, var: str) -> str:
    """`text` at var + 1: `acc[n]` -> `acc[n + 1]`."""
    text = re.sub(rf"\[\s*{re.escape(var)}\s*\]", f"[{var} + 1]", text)
    return re.sub(rf"(?<![\w.>\[]){re.escape(var)}(?!\w)", f"({var} + 1)", text)


def _paired(unit: SourceFile, outer: Node, inner: Node, step: Step, loop_vars: tuple[str, str], kvar: str,
            nvar: str, guards: tuple[str, ...]) -> Hit:
    updates = [x.child_by_field_name("update") for x in (outer, inner)]
    acc, a, b = step.acc, step.a, step.b
    args = [acc, _next(acc, nvar), a, _next(a, kvar), b, _next(b, nvar), _next(b, kvar), _next(_next(b, kvar), nvar)]
    call = f"porter_mma_m16n16k32_{step.dtype}({', '.join(args)});"
    edits = tuple(Edit(u.start_byte, u.end_byte, f"{v} += 2") for u, v in zip(updates, loop_vars))
    edits += (Edit(step.node.start_byte, step.node.end_byte, call),)
    message = (f"mma.sync m16n8k16 K loop over `{kvar}` x n8 tiles over `{nvar}`: two k steps of two tiles "
               f"sharing A per porter_mma_m16n16k32_{step.dtype} (one full-K v_mfma_f32_16x16x32_{step.dtype} "
               "per warp: half the MFMA count)")
    severity = Severity.error if step.asm else Severity.info
    if not guards:
        return Hit(outer.start_byte, outer.start_byte + 3, message, severity=severity, edits=edits)
    # A count porter cannot evaluate (a template parameter): the paired nest where it is even, the
    # nest as it was (its asm unpaired) otherwise; with constant counts the compiler keeps one.
    start, end = outer.start_byte, max(outer.end_byte, step.node.end_byte)
    pragma = outer.prev_named_sibling
    if pragma is not None and pragma.type == "preproc_call" and "unroll" in unit.text(pragma):
        start = pragma.start_byte  # `#pragma unroll` must stay right before its loop
    line_start = unit.data.rfind(b"\n", 0, start) + 1
    whole_line = not unit.data[line_start:start].strip()
    if whole_line:
        start = line_start  # take the first line whole, its indent included
    for_line = unit.data.rfind(b"\n", 0, outer.start_byte) + 1
    indent = unit.data[for_line:outer.start_byte].decode()
    indent = indent if not indent.strip() else ""
    original = [] if not step.asm else [Edit(step.node.start_byte, step.node.end_byte, _unpaired_call(unit, step))]

    def text(changes: list[Edit]) -> str:
        out, pos = [], start
        for e in sorted(changes, key=lambda e: e.start):
            out += [unit.data[pos:e.start].decode(), e.text]
            pos = e.end
        out.append(unit.data[pos:end].decode())
        return "  " + "".join(out).replace("\n", "\n  ")

    first = indent if whole_line else ""
    block = (f"{first}if ({' && '.join(guards)}) {{  // MFMA002: k steps and n8 tiles paired where both counts "
             f"are even\n{text(list(edits))}\n{indent}}} else {{\n{text(original)}\n{indent}}}")
    return Hit(outer.start_byte, outer.start_byte + 3, message + f" where {' and '.join(guards)}",
               severity=severity, edits=(Edit(start, end, block),))


def _unpaired_call(unit: SourceFile, step: Step) -> str:
    asm = mfma.parse_asm(unit, step.node)
    return f"porter_mma_m16n8k16_{step.dtype}({', '.join(x for g in asm.groups for x in g)});"


def _runs(unit: SourceFile, wrappers) -> Iterator[list[Step]]:
    """Runs of 4 or more consecutive mma statements of one type in a block (nothing between them)."""
    for block in unit.captures(_BLOCKS):
        run: list[Step] = []
        for child in [*block.named_children, None]:
            step = _step(unit, child, wrappers) if child is not None else None
            if isinstance(step, Step) and (not run or run[0].dtype == step.dtype):
                run.append(step)
                continue
            if len(run) >= 4:
                yield run
            run = [step] if isinstance(step, Step) else []


def _paired_run(unit: SourceFile, run: list[Step]) -> Hit | None:
    """Consecutive steps (an unrolled K loop nest) as paired calls: every accumulator gets exactly two
    steps, with A registers a0 then a1, and the accumulators sharing (a0, a1) come in twos. The
    steps of different accumulators are independent (the accumulators are neither A nor B), so each
    pair of accumulators is issued at the place of its first step, its two k steps in order."""
    by_acc: dict[str, list[Step]] = {}
    for s in run:
        by_acc.setdefault(s.acc, []).append(s)
    reads = {x for s in run for x in (s.a, s.b)}
    if any(len(v) != 2 or v[0].a == v[1].a for v in by_acc.values()) or reads & set(by_acc):
        return None
    groups: dict[tuple[str, str], list[str]] = {}
    for acc, (k0, k1) in by_acc.items():
        groups.setdefault((k0.a, k1.a), []).append(acc)
    if any(len(accs) % 2 for accs in groups.values()):
        return None
    indent = unit.data[unit.data.rfind(b"\n", 0, run[0].node.start_byte) + 1:run[0].node.start_byte].decode()
    calls = []
    for (a0, a1), accs in groups.items():
        for c0, c1 in zip(accs[::2], accs[1::2]):
            (s00, s10), (s01, s11) = by_acc[c0], by_acc[c1]
            args = [c0, c1, a0, a1, s00.b, s01.b, s10.b, s11.b]
            calls.append(f"porter_mma_m16n16k32_{run[0].dtype}({', '.join(args)});")
    text = ("\n" + indent if not indent.strip() else " ").join(calls)
    start, end = run[0].node.start_byte, run[-1].node.end_byte
    return Hit(start, end,
               f"{len(run)} consecutive mma.sync m16n8k16 steps (2 k steps x {len(by_acc)} n8 tiles sharing A) -> "
               f"{len(calls)} porter_mma_m16n16k32_{run[0].dtype} (one full-K v_mfma_f32_16x16x32 per warp each: "
               "half the MFMA count)",
               severity=Severity.error if any(s.asm for s in run) else Severity.info,
               edits=(Edit(start, end, text),))
