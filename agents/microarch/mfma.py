"""What the MFMA### rules read: in inline PTX, the one `mma.sync` or `ldmatrix` instruction of an
asm statement and the C operand behind each %N; in nvcuda::wmma code, the fragments the gfx950
helpers do not cover; around mma.sync m16n8k16, the K loop nests and unrolled runs of steps that
MFMA006 pairs (and MFMA002 therefore leaves to it).

The rules (microarch agent, after the translator) rewrite those statements into calls of porter's
gfx950 helpers (shims/compat/mfma_gfx950.h); tests/agents/test_mfma_layouts.py checks the helpers'
lane layouts numerically.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.syntax import SourceFile

MMA = re.compile(r"^mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.(f16|bf16)\.(f16|bf16)\.f32$")
LDMATRIX = re.compile(r"^ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?\.shared(::cta)?\.b16$")
_OPERAND = re.compile(r"%(\d+)")
WMMA_INPUT_TYPES = frozenset({"half", "__half", "__hip_bfloat16", "__nv_bfloat16", "nv_bfloat16"})
_OTHER_NVCUDA = re.compile(rb"\bnvcuda\s*::\s*(?!wmma\b)\w+")
_FRAGMENT = "(template_type name: (type_identifier) @name arguments: (template_argument_list) @args) @t"
_FUNCTIONS = "(function_definition) @f"
_BLOCKS = "(compound_statement) @b"
_MACROS = "(preproc_function_def) @m"
_LOOPS = "(for_statement) @f"
# An operand register `base[i]`; the base an identifier with subscripts and members (`acc[n]`,
# `frag_b[k][n]`, `c[n].x`).
_ELEMENT = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*(?:\.|->)\s*\w+|\s*\[[^\[\]]+\])*)\s*\[\s*(\d+)\s*\]\s*$")
# A loop bound the paired form may test again (`(kTiles) % 2 == 0`): names, literals, arithmetic.
_PURE_BOUND = re.compile(r"[\w\s+\-*/%()<>:]+")
_WRITES = re.compile(r"\+\+|--|=|\(")  # an index the paired call would evaluate more often


@dataclass(frozen=True)
class AsmStatement:
    """One inline-asm statement: its single PTX instruction, and the C operand for each %N."""

    node: Node  # the expression statement (with its semicolon)
    mnemonic: str
    groups: tuple[tuple[str, ...], ...]  # operand groups ({...} or [...]), each as C expressions
    volatile: bool


def parse_asm(src: SourceFile, statement: Node) -> AsmStatement | None:
    """The asm statement `statement` if it holds exactly one PTX instruction with %N operands."""
    asm = next((c for c in statement.named_children if c.type == "gnu_asm_expression"), None)
    if asm is None:
        return None
    code = [c for c in asm.named_children if c.type in ("string_literal", "concatenated_string")][:1]
    strings = src.captures("(string_literal) @s", code[0]) if code else []
    text = "".join(src.text(s)[1:-1] for s in strings).replace("\\n", " ").replace("\\t", " ")
    body = text.strip().rstrip(";").strip()
    if ";" in body or not body:
        return None
    mnemonic, _, rest = body.partition(" ")
    operands = [_operand_expr(src, o) for o in _operands(asm, "gnu_asm_output_operand_list")]
    operands += [_operand_expr(src, o) for o in _operands(asm, "gnu_asm_input_operand_list")]
    groups: list[tuple[str, ...]] = []
    for group in re.findall(r"\{([^}]*)\}|\[([^\]]*)\]", rest):
        refs = _OPERAND.findall(group[0] or group[1])
        if not refs or any(int(r) >= len(operands) for r in refs):
            return None
        groups.append(tuple(operands[int(r)] for r in refs))
    volatile = any(src.text(c) == "volatile" for c in asm.children if c.type == "gnu_asm_qualifier")
    return AsmStatement(statement, mnemonic, tuple(groups), volatile)


def _operands(asm: Node, kind: str) -> list[Node]:
    lists = [c for c in asm.named_children if c.type == kind]
    return [c for c in lists[0].named_children if c.type.startswith("gnu_asm_")] if lists else []


def _operand_expr(src: SourceFile, operand: Node) -> str:
    """The C expression of `"=r"(x)` or `[name] "=r"(x)`."""
    values = [c for c in operand.named_children if c.type not in ("string_literal", "identifier")
              or c.prev_sibling is not None and c.prev_sibling.type == "("]
    return " ".join(src.text(values[-1]).split()) if values else ""


def shape_value(unit: SourceFile, text: str, headers: Sequence[SourceFile] = ()) -> int | None:
    """The integer a fragment's shape argument stands for: a literal, or a name the file (else one of
    its project `headers`) defines once, as a #define or a const/constexpr (cudaTensorCoreGemm's
    `#define WMMA_M 16`); None when unknown or defined with two values."""
    lit = patterns.literal(text)
    if lit is not None:
        return lit[0]
    if not re.fullmatch(r"[A-Za-z_]\w*", text):
        return None
    for src in (unit, *headers):
        found = patterns.definitions(src).get(text, [])
        if found:
            values = {patterns.value(src, d.view, d.value) for d in found}
            return values.pop() if len(values) == 1 else None
    return None


def wmma_unsupported(unit: SourceFile, headers: Sequence[SourceFile] = ()) -> Iterator[tuple[int, int, str]]:
    """Fragments and nvcuda names the porter_wmma helpers do not cover: (start, end, what). A shape
    argument may be a name the file or its project `headers` define as 16 (shape_value)."""
    for m in _OTHER_NVCUDA.finditer(unit.data):
        if unit.is_code(m.start()):
            yield m.start(), m.end(), f"`{m.group().decode()}`"
    for match in unit.matches(_FRAGMENT):
        if unit.text(match["name"][0]) != "fragment":
            continue
        node = match["t"][0]
        args = [" ".join(unit.text(a).split()) for a in match["args"][0].named_children if a.type != "comment"]
        if len(args) < 5:
            continue
        use = args[0].rsplit("::", 1)[-1]
        shape_ok = all(shape_value(unit, a, headers) == 16 for a in args[1:4])
        elem = args[4].rsplit("::", 1)[-1]
        type_ok = elem == "float" if use == "accumulator" else elem in WMMA_INPUT_TYPES
        if not (shape_ok and type_ok):
            yield node.start_byte, node.end_byte, f"wmma fragment <{', '.join(args)}>"


@dataclass(frozen=True)
class MmaStep:
    """One mma.sync m16n8k16 as a K loop nest issues it: its statement and the bases of its registers."""

    node: Node  # the statement (asm, or a call of a wrapper whose body is the asm)
    dtype: str  # f16 or bf16
    acc: str  # C and D: `acc[n]` holds d[0..3]
    a: str
    b: str
    asm: bool  # the statement is the asm itself (MFMA006 rewrites it where it pairs, MFMA002 elsewhere)


class MmaNest(NamedTuple):
    """A K loop nest MFMA006 pairs: two loops around one mma step, one over k steps, one over n8 tiles."""

    outer: Node
    inner: Node
    step: MmaStep
    loop_vars: tuple[str, str]  # (outer var, inner var)
    kvar: str
    nvar: str
    guards: tuple[str, ...]  # `(bound) % 2 == 0` for each count porter cannot evaluate


Wrappers = dict[str, tuple[list[str], AsmStatement]]


def paired_mma_spans(unit: SourceFile) -> list[tuple[int, int]]:
    """The byte ranges whose code MFMA006 rewrites: the mma statement of each pairable K loop nest
    (the whole nest where a count is tested: its guarded form repeats it), and each pairable run of
    steps. Rules take edits in id order, and an edit overlapping one already taken is dropped, so
    the lower-numbered rules that would edit there (MFMA002's asm rewrite, MFMA004's literals)
    leave these bytes to MFMA006."""
    wrappers = mma_wrappers(unit)
    spans = []
    for loop in unit.captures(_LOOPS):
        nest = mma_nest(unit, loop, wrappers)
        if isinstance(nest, MmaNest):
            step = nest.step.node
            spans.append((loop.start_byte, max(loop.end_byte, step.end_byte)) if nest.guards
                         else (step.start_byte, step.end_byte))
    for run in mma_runs(unit, wrappers):
        if run_pairs(run) is not None:
            spans.append((run[0].node.start_byte, run[-1].node.end_byte))
    return spans


def within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether bytes [start, end) lie inside one of `spans`."""
    return any(s <= start and end <= e for s, e in spans)


def _registers(asm: AsmStatement) -> tuple[str, str, str, str] | None:
    """(dtype, acc, a, b) bases of an accumulating m16n8k16 asm whose groups are base[0..n-1], C == D."""
    m = MMA.match(asm.mnemonic)
    if m is None or m.group(1) != m.group(2) or tuple(len(g) for g in asm.groups) != (4, 4, 2, 4):
        return None
    bases = []
    for group in asm.groups:
        found = [f for f in (_ELEMENT.match(x) for x in group) if f is not None]
        if len(found) != len(group) or [int(f.group(2)) for f in found] != list(range(len(group))):
            return None
        names = {" ".join(f.group(1).split()) for f in found}
        if len(names) != 1:
            return None
        bases.append(names.pop())
    if any(_WRITES.search(x) for x in bases):
        return None
    d, a, b, c = bases
    return (m.group(1), d, a, b) if d == c else None


def mma_wrappers(unit: SourceFile) -> Wrappers:
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
        asm = parse_asm(unit, stmts[0])
        if asm is not None and asm.mnemonic.startswith("mma.sync"):
            names = [_param_name(unit, p) for p in params.named_children if p.type == "parameter_declaration"]
            found[unit.text(name)] = (names, asm)
    bodies = {v.base: v for v in patterns.views(unit)[1:]}
    for macro in unit.captures(_MACROS):
        value, params = macro.child_by_field_name("value"), macro.child_by_field_name("parameters")
        macro_name = macro.child_by_field_name("name")
        view = bodies.get(value.start_byte) if value is not None else None
        stmts = [x for x in view.src.tree.root_node.named_children if x.type != "comment"] if view else []
        if (view is None or params is None or macro_name is None or len(stmts) != 1
                or stmts[0].type != "expression_statement"):
            continue
        asm = parse_asm(view.src, stmts[0])
        if asm is not None and asm.mnemonic.startswith("mma.sync"):
            found[unit.text(macro_name)] = ([unit.text(x) for x in params.named_children], asm)
    return found


def _param_name(unit: SourceFile, param: Node) -> str:
    decl = param.child_by_field_name("declarator")
    while decl is not None and decl.type != "identifier":
        inner = decl.child_by_field_name("declarator")
        decl = inner if inner is not None else next((c for c in decl.named_children if c.type != "type_qualifier"), None)
    return unit.text(decl) if decl is not None else ""


def mma_step(unit: SourceFile, stmt: Node, wrappers: Wrappers) -> MmaStep | str | None:
    """The mma of a loop body statement: an MmaStep, a reason it cannot pair, or None (no mma)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    expr = stmt.named_children[0]
    if expr.type == "gnu_asm_expression":
        asm = parse_asm(unit, stmt)
        if asm is None or not asm.mnemonic.startswith("mma.sync"):
            return None
        regs = _registers(asm)
        if regs is None:
            return "the asm's registers are not base[0..n] arrays with C the same as D, or not m16n8k16 f16/bf16"
        return MmaStep(stmt, *regs, asm=True)
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
    regs = _registers(AsmStatement(asm.node, asm.mnemonic, at_call, asm.volatile))
    if regs is None:
        return (f"`{unit.text(fn)}`'s registers at this call are not base[0..n] arrays with C the same as D, "
                "or it is not m16n8k16 f16/bf16")
    return MmaStep(stmt, *regs, asm=False)


def _substitute(text: str, values: dict[str, str]) -> str:
    """`text` with each parameter name replaced by the call's argument."""
    return re.sub(r"(?<![\w.>])[A-Za-z_]\w*", lambda m: values.get(m.group(), m.group()), text)


def loop_body(loop: Node) -> Node | None:
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


def only_statement(body: Node | None) -> Node | None:
    """The one statement of a loop body (braces, comments and #pragma lines aside)."""
    if body is None:
        return None
    if body.type != "compound_statement":
        return body
    stmts = [x for x in body.named_children if x.type not in ("comment", "preproc_call")]
    return stmts[0] if len(stmts) == 1 else None


def loop_counter(unit: SourceFile, loop: Node) -> tuple[str, int | None, str] | None:
    """(var, trip count, bound text) of `for (T var = 0; var < bound; ++var / var++ / var += 1)`;
    count None when the bound is not a constant the file defines (a template parameter, a variable)."""
    init, cond, update = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    if init is None or cond is None or update is None or init.type != "declaration":
        return None
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    if len(decls) != 1 or unit.text(decls[0].child_by_field_name("value") or decls[0]) != "0":
        return None
    declarator = decls[0].child_by_field_name("declarator")
    op, left, bound = (cond.child_by_field_name(f) for f in ("operator", "left", "right"))
    if declarator is None or op is None or left is None or bound is None:
        return None  # a parse error inside the loop header
    var = unit.text(declarator)
    if cond.type != "binary_expression" or unit.text(op) != "<":
        return None
    if unit.text(left) != var:
        return None
    step = " ".join(unit.text(update).split())
    if step not in (f"++{var}", f"{var}++", f"{var} += 1", f"{var}+=1"):
        return None
    return var, patterns.value(unit, patterns.View(unit, 0), bound), " ".join(unit.text(bound).split())


def mma_nest(unit: SourceFile, outer: Node, wrappers: Wrappers) -> MmaNest | str | None:
    """The pairable K loop nest `outer` starts, a reason why an mma loop nest is not pairable, or None
    when `outer` is not the outer loop of a nest around one mma."""
    inner = only_statement(loop_body(outer))
    if inner is None or inner.type != "for_statement":
        return None
    stmt = only_statement(loop_body(inner))
    step = mma_step(unit, stmt, wrappers) if stmt is not None else None
    if step is None or isinstance(step, str):
        return step
    outer_counter, inner_counter = loop_counter(unit, outer), loop_counter(unit, inner)
    if outer_counter is None or inner_counter is None:
        return "the loops do not count from 0 by 1 to a bound"
    (ov, on, ob), (iv, inn, ib) = outer_counter, inner_counter
    uses = {x: {v for v in (ov, iv) if mentions(x, v)} for x in (step.acc, step.a)}
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
    return MmaNest(outer, inner, step, (ov, iv), kvar, nvar, tuple(guards))


def mentions(text: str, var: str) -> bool:
    return re.search(rf"(?<![\w.>]){re.escape(var)}(?!\w)", text) is not None


def mma_runs(unit: SourceFile, wrappers: Wrappers) -> Iterator[list[MmaStep]]:
    """Runs of 4 or more consecutive mma statements of one type in a block (nothing between them)."""
    for block in unit.captures(_BLOCKS):
        run: list[MmaStep] = []
        for child in [*block.named_children, None]:
            step = mma_step(unit, child, wrappers) if child is not None else None
            if isinstance(step, MmaStep) and (not run or run[0].dtype == step.dtype):
                run.append(step)
                continue
            if len(run) >= 4:
                yield run
            run = [step] if isinstance(step, MmaStep) else []




def run_pairs(run: list[MmaStep]) -> tuple[dict[str, list[MmaStep]], dict[tuple[str, str], list[str]]] | None:
    """How a run of consecutive steps (an unrolled K loop nest) pairs: its steps by accumulator and
    the accumulators by their (a0, a1) A registers; None unless every accumulator gets exactly two
    steps, with A registers a0 then a1, no accumulator is read as A or B, and the accumulators
    sharing (a0, a1) come in twos."""
    by_acc: dict[str, list[MmaStep]] = {}
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
    return by_acc, groups
