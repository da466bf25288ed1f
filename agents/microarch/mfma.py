"""What the MFMA### rules read: in inline PTX, the one `mma.sync` or `ldmatrix` instruction of an
asm statement and the C operand behind each %N; in nvcuda::wmma code, the fragments the gfx950
helpers do not cover.

The rules (microarch agent, after the translator) rewrite those statements into calls of porter's
gfx950 helpers (shims/compat/mfma_gfx950.h); tests/agents/test_mfma_layouts.py checks the helpers'
lane layouts numerically.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.syntax import SourceFile

MMA = re.compile(r"^mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.(f16|bf16)\.(f16|bf16)\.f32$")
LDMATRIX = re.compile(r"^ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?\.shared(::cta)?\.b16$")
_OPERAND = re.compile(r"%(\d+)")
WMMA_INPUT_TYPES = frozenset({"half", "__half", "__hip_bfloat16", "__nv_bfloat16", "nv_bfloat16"})
_OTHER_NVCUDA = re.compile(rb"\bnvcuda\s*::\s*(?!wmma\b)\w+")
_FRAGMENT = "(template_type name: (type_identifier) @name arguments: (template_argument_list) @args) @t"


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
