"""The inline-PTX catalog: common asm blocks and the HIP / C++ that computes the same on gfx950.

The microarch agent's PTX002-PTX008 rules each fix one family of this catalog; PTX001 reports
every asm block the catalog does not cover, for the model or a person. All of them call
`blocks()`, so a block is either rewritten by exactly one family rule or reported by PTX001.

How a block is read: tree-sitter's gnu_asm_expression gives the template (string literals,
concatenated and unescaped), the output and input operands (constraint, C++ expression) and the
clobbers. The template is normalised: comments and scope braces dropped, whitespace collapsed,
`%%` -> `%` (a PTX register sigil), and operand references `%0`, `%[name]` -> `$0`, `$1`, ...
numbered outputs first, as GCC does. Each instruction is then evaluated symbolically: a catalog
entry (an opcode pattern) turns it into a C++ expression over its source operands. Local
registers (`.reg .pred p;`) hold expressions; `$k` outputs are assigned at the end. A block is
covered when every instruction is an entry, every output is written, and no side-effecting
operand expression would be evaluated a different number of times than in the asm. The
rewrite replaces the asm expression with `out = expr` (several joined by commas), or with a
block statement when a temporary is needed (vector loads).

Sources: each entry names its PTX ISA section (NVIDIA, "Parallel Thread Execution ISA",
version 8.5) and the AMD side (HIP's device headers, clang's AMDGPU builtins, the AMD CDNA3
ISA reference; gfx950 is CDNA4, which keeps these instructions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from porter import cuda_patterns as patterns

# Importing the entries registers them (one module per family keeps each under ~200 lines).
from porter.agents.microarch import ptx_entries  # noqa: F401
from porter.agents.microarch.ptx_eval import ENTRIES, Eval, Instruction, NotCovered, Operand
from porter.rules import Hit
from porter.state import Edit
from porter.syntax import SourceFile

# Family -> the rule that fixes it. "glue" entries (setp/selp/mov copies) belong to no family:
# a block made only of glue stays with PTX001.
FAMILY_RULE = {
    "special": "PTX002", "lanemask": "PTX003", "cache": "PTX004", "warp": "PTX005",
    "bits": "PTX006", "convert": "PTX007", "sleep": "PTX008",
}

GLUE = frozenset({"mov", "setp", "selp", "popc"})
FENCE = "__atomic_signal_fence(__ATOMIC_SEQ_CST)"


@dataclass(frozen=True)
class Rewrite:
    rule: str
    entries: tuple[str, ...]  # catalog entries used, e.g. ("mov %laneid",)
    text: str
    statement: bool  # replaces the whole expression statement (a block with a temporary)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class AsmBlock:
    view: patterns.View
    node: Node  # gnu_asm_expression
    template: str | None  # normalised; None when the template is not plain string literals
    instructions: tuple[Instruction, ...] | None
    operands: tuple[Operand, ...]
    clobbers: tuple[str, ...]
    rewrite: Rewrite | None
    reason: str  # why it is not covered ("" when it is)

    @property
    def span(self) -> tuple[int, int]:
        """File offsets the rewrite replaces: the asm expression, or its statement."""
        target = self.node.parent if self.rewrite and self.rewrite.statement else self.node
        return self.view.span(target)


_ASM = "(gnu_asm_expression) @asm"
_OPERANDS = "[(gnu_asm_output_operand) (gnu_asm_input_operand)] @op"
_IMPURE = "[(call_expression) (assignment_expression) (update_expression) (gnu_asm_expression)] @x"
_SIMPLE = frozenset({"identifier", "number_literal", "field_expression", "subscript_expression", "call_expression",
                     "parenthesized_expression", "qualified_identifier", "this", "true", "false"})
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": "\r"}


def blocks(unit: SourceFile) -> list[AsmBlock]:
    """Every asm statement of the file (macro bodies included), matched against the catalog."""
    key = "microarch.ptx_blocks"
    if key not in unit.memo:
        found = []
        for view in patterns.views(unit):
            for node in view.src.captures(_ASM):
                found.append(read(view, node))
        unit.memo[key] = found
    return unit.memo[key]


def read(view: patterns.View, node: Node) -> AsmBlock:
    src = view.src
    operands = _operands(src, node)
    clobbers = tuple(_unquote(src.text(s)) or "" for s in src.captures("(string_literal) @s", node.child_by_field_name("clobbers"))
                     ) if node.child_by_field_name("clobbers") else ()
    extended = any(node.child_by_field_name(f) for f in ("output_operands", "input_operands", "clobbers"))
    template, why = _template(src, node.child_by_field_name("assembly_code"), operands, extended)
    if template is None:
        return AsmBlock(view, node, None, None, operands, clobbers, None, why)
    try:
        instructions, regs = parse(template)
        rewrite = evaluate(instructions, regs, operands, clobbers, statement_ok=_is_statement(node))
        return AsmBlock(view, node, template, instructions, operands, clobbers, rewrite, "")
    except NotCovered as why:
        return AsmBlock(view, node, template, _safe_parse(template), operands, clobbers, None, str(why))


# ---------------------------------------------------------------------------------------------
# Reading the asm statement


def _unquote(literal: str) -> str | None:
    """The value of one plain C string literal; None for prefixed, raw or odd escapes."""
    if len(literal) < 2 or not (literal.startswith('"') and literal.endswith('"')):
        return None
    out, body, i = [], literal[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 >= len(body) or body[i + 1] not in _ESCAPES:
                return None
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _operands(src: SourceFile, node: Node) -> tuple[Operand, ...]:
    ops: list[Operand] = []
    for op in src.captures(_OPERANDS, node):
        constraint = _unquote(src.text(op.child_by_field_name("constraint"))) or ""
        value = op.child_by_field_name("value")
        output = op.type == "gnu_asm_output_operand"
        letters = re.sub(r"[=+&%]", "", constraint)
        tied = int(letters) if not output and letters.isdigit() else None
        inner = patterns.unwrap(value)
        if inner.type == "comma_expression":
            inner = value  # keep its parentheses: the text must stay one argument
        ops.append(Operand(
            index=len(ops), output=output, constraint=letters, readwrite="+" in constraint, tied=tied,
            expr=src.text(inner), simple=inner.type in _SIMPLE,
            pure=not src.captures(_IMPURE, inner) or _pure_call(src, inner),
        ))
    return tuple(ops)


# Calls that only convert or read their argument; an operand that is one of these may be copied.
_PURE_CALLS = re.compile(r"^(__float_as_u?int|__u?int_as_float|__double_as_longlong|__longlong_as_double|"
                         r"static_cast|reinterpret_cast)$")


def _pure_call(src: SourceFile, node: Node) -> bool:
    for n in src.captures(_IMPURE, node):
        fn = n.child_by_field_name("function") if n.type == "call_expression" else None
        name = src.text(fn.child_by_field_name("name") or fn) if fn is not None and fn.type == "template_function" \
            else (src.text(fn) if fn is not None else "")
        if not _PURE_CALLS.match(name):
            return False
    return True


def _names(src: SourceFile, node: Node) -> dict[str, int]:
    names: dict[str, int] = {}
    for i, op in enumerate(src.captures(_OPERANDS, node)):
        sym = op.child_by_field_name("symbol")
        if sym is not None:
            names[src.text(sym)] = i
    return names


_REF = re.compile(r"%(%|\[(\w+)\]|(\d+)|.)", re.S)


def _template(src: SourceFile, code: Node | None, operands: tuple[Operand, ...],
              extended: bool) -> tuple[str | None, str]:
    """The normalised template, or None and why not."""
    if code is None:
        return None, "no template"
    pieces = [code] if code.type == "string_literal" else list(code.named_children)
    if not pieces or any(p.type != "string_literal" for p in pieces):
        return None, "the template is built with macros"
    raw = "".join(_unquote(src.text(p)) or "\0" for p in pieces)
    if "\0" in raw:
        return None, "the template has a prefixed string or an unusual escape"
    if not extended:
        return raw, ""
    names = _names(src, code.parent)
    bad: list[str] = []

    def ref(m: re.Match[str]) -> str:
        if m.group(1) == "%":
            return "%"
        index = names.get(m.group(2), -1) if m.group(2) else int(m.group(3)) if m.group(3) else -1
        if not 0 <= index < len(operands):
            bad.append(m.group(0))  # an operand modifier (%w0), a missing operand or an unknown name
        return f"${index}"

    text = _REF.sub(ref, raw)
    return (None, f"operand reference {bad[0]} names no operand") if bad else (text, "")


def _is_statement(node: Node) -> bool:
    return node.parent is not None and node.parent.type == "expression_statement"


# ---------------------------------------------------------------------------------------------
# Normalising the PTX text

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_REG_NAME = re.compile(r"^[A-Za-z_$%][\w$]*$")


def parse(template: str) -> tuple[tuple[Instruction, ...], frozenset[str]]:
    """Instructions (opcode, arguments without spaces) and the local registers a block declares."""
    text = _COMMENTS.sub(" ", template)
    instructions: list[Instruction] = []
    regs: set[str] = set()
    for statement in text.split(";"):
        statement = " ".join(statement.split()).lstrip("{} ")
        while statement.endswith("}") and statement.count("}") > statement.count("{"):
            statement = statement[:-1].rstrip()  # a scope brace, not a vector operand's
        if not statement:
            continue
        if statement.startswith("@"):
            raise NotCovered(f"guarded instruction `{statement}`")
        if re.match(r"^[\w$]+:", statement):
            raise NotCovered(f"label in `{statement}`")
        if statement.startswith(".reg"):
            parts = statement.split(None, 2)
            if len(parts) != 3 or not parts[1].startswith("."):
                raise NotCovered(f"declaration `{statement}`")
            for name in parts[2].replace(" ", "").split(","):
                if not _REG_NAME.match(name):
                    raise NotCovered(f"register declaration `{statement}`")
                regs.add(name)
            continue
        if statement.startswith("."):
            raise NotCovered(f"directive `{statement}`")
        opcode, _, rest = statement.partition(" ")
        instructions.append(Instruction(opcode, _split_args(rest)))
    if not instructions:
        raise NotCovered("no instruction")
    return tuple(instructions), frozenset(regs)


def _split_args(text: str) -> tuple[str, ...]:
    args, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        args.append("".join(cur))
    return tuple(a.replace(" ", "") for a in args if a.strip())


def _safe_parse(template: str) -> tuple[Instruction, ...] | None:
    try:
        return parse(template)[0]
    except NotCovered:
        return None


def evaluate(instructions: tuple[Instruction, ...], regs: frozenset[str], operands: tuple[Operand, ...],
             clobbers: tuple[str, ...], *, statement_ok: bool) -> Rewrite:
    ev = Eval(operands, regs)
    for ins in instructions:
        for pattern, handler in ENTRIES:
            m = pattern.fullmatch(ins.opcode)
            if m:
                handler(ev, m, ins.args)
                break
        else:
            raise NotCovered(f"`{ins}` is not in the catalog")
    families = {f for f in ev.families if f != "glue"}
    if not families:
        raise NotCovered("only glue instructions (setp/selp/mov/popc)")
    for op in operands:
        if op.output and f"${op.index}" not in ev.env and not op.readwrite:
            raise NotCovered(f"output ${op.index} is never written")
    assigned = sorted(((operands[int(k[1:])], v) for k, v in ev.env.items() if k.startswith("$")), key=lambda ov: ov[0].index)
    values = {id(v): v for v in [*ev.inputs.values(), *ev.env.values()]}
    for v in values.values():
        emitted = v.uses + sum(1 for _, a in assigned if a is v)
        if v.effect and emitted != 1:
            raise NotCovered(f"`{v.text}` has side effects and would be evaluated {emitted} times")
    if ev.effects and any(v.effect for v in values.values()):
        raise NotCovered("loads or clocks and stores or sleeps in one block")
    parts = [*ev.temps, *ev.effects, *(f"{op.expr} = {v.text}" for op, v in assigned)]
    if "memory" in clobbers:
        # The clobber made the asm a compiler barrier; keep it one (no instruction is emitted).
        parts = [FENCE, *parts, FENCE]
    rule = FAMILY_RULE[min(families, key=lambda f: FAMILY_RULE[f])]
    if ev.temps:
        if not statement_ok:
            raise NotCovered("needs a temporary, and the asm is not a statement")
        return Rewrite(rule, tuple(ev.entries), "{ " + " ".join(f"{s};" for s in parts) + " }", True, tuple(ev.notes))
    return Rewrite(rule, tuple(ev.entries), ", ".join(parts), False, tuple(ev.notes))


def family_hits(unit: SourceFile, rule_id: str) -> Iterator[Hit]:
    """The fixes of one family rule: each covered asm block it owns, rewritten."""
    for block in blocks(unit):
        if block.rewrite is None or block.rewrite.rule != rule_id:
            continue
        start, end = block.span
        rw = block.rewrite
        entries = ", ".join(dict.fromkeys(e for e in rw.entries if e not in GLUE))
        notes = "".join(f"; {n}" for n in rw.notes)
        yield Hit(start, end, f"inline PTX ({entries}) rewritten for gfx950 as `{rw.text}`{notes}",
                  edits=(Edit(start, end, rw.text, rule_id),), detail=block.view.src.text(block.node))
