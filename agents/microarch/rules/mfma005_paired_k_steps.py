"""MFMA005: a wmma K loop paired, two 16-deep steps per full-K v_mfma_f32_16x16x32.

Why: MFMA001's porter_wmma::mma_sync runs each warp's 16x16x16 step on half of a
    v_mfma_f32_16x16x32's K (the two warps of a wave share one instruction, each with 16 of its 32
    K rows and half its A rows zero), so a 16x16 tile costs two MFMAs per 16 of K: half the matrix
    cores' rate. Two consecutive K steps of one warp fill the whole instruction: with both steps
    in hand, porter_wmma::mma_sync_k32 (shims/compat/mfma_gfx950.h) issues one MFMA per warp for
    K 32 (step k from lanes 0-31, step k + 1 from lanes 32-63, moved by v_permlane32_swap), so the
    wave issues 2 MFMAs where 4 ran before: the v_mfma count of the loop halves.

    The rewrite applies to a `for` loop whose body is only load_matrix_sync calls that fill the A
    and B fragments, then one mma_sync(acc, a, b, acc): the loop steps twice as far, and while the
    next step is in range (the loop condition at var + step), it loads that step's fragments too
    and makes the paired call; an odd last step runs as before.

Before:
    for (int kk = 0; kk < k; kk += 16) {
      wmma::load_matrix_sync(af, a + kk, k);
      wmma::load_matrix_sync(bf, b + kk, k);
      nvcuda::wmma::mma_sync(acc, af, bf, acc);
    }
After:
    for (int kk = 0; kk < k; kk += 32) {
      wmma::load_matrix_sync(af, a + kk, k);
      wmma::load_matrix_sync(bf, b + kk, k);
      if ((kk + 16) < k) {  // MFMA005: K steps kk and kk + 16 in one full-K MFMA per warp
        decltype(af) af_k1;
        decltype(bf) bf_k1;
        wmma::load_matrix_sync(af_k1, a + (kk + 16), k);
        wmma::load_matrix_sync(bf_k1, b + (kk + 16), k);
        porter_wmma::mma_sync_k32(acc, af, bf, af_k1, bf_k1, acc);
        continue;
      }
      nvcuda::wmma::mma_sync(acc, af, bf, acc);
    }

Fix safety: safe: the same loads and the same products (the second step's loads are the next
    iteration's, read at var + step); the float sums of two steps are added in the MFMA's order
    instead of one step after the other, as a wmma K loop's are on NVIDIA's side. Only loops whose
    condition, step and load arguments have no side effects (no calls, assignments or ++/--) and
    whose body writes nothing else are paired; a wave split by a branch (one warp left) takes the
    helpers' VALU path. Not with --matrix rocwmma, and not in a file MFMA001 leaves alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_LOOPS = "(for_statement) @f"
_QUALIFIED = re.compile(r"\bnvcuda\s*::\s*wmma\b")
# Anything that writes or may write: the paired loop evaluates these texts at var + step as well.
_EFFECTS = frozenset({"call_expression", "assignment_expression", "update_expression", "comma_expression",
                      "new_expression", "delete_expression", "lambda_expression", "gnu_asm_expression"})


@rule(id="MFMA005", lang="cuda", severity="info", fix="safe")
def paired_k_steps(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if b"mma_sync" not in unit.data or b"nvcuda" not in unit.data or ctx.options.matrix != "porter":
        return
    if next(mfma.wmma_unsupported(unit), None) is not None:
        return
    taken = set(re.findall(r"\w+", unit.data.decode(errors="replace")))
    for loop in unit.captures(_LOOPS):
        found = _pairable(unit, loop)
        if found is None:
            continue
        var, step, update, cond, loads, mma = found
        acc, a, b = (unit.text(x) for x in _args(mma)[:3])
        names = {}
        for frag in (a, b):
            name = f"{frag}_k1"
            while name in taken:
                name += "_"
            names[frag] = name
        stride = str(2 * int(unit.text(step))) if step.type == "number_literal" else f"2 * {unit.text(step)}"
        later = f"({var} + {unit.text(step)})"
        indent = _indent(unit, mma)
        inner = indent + "  "
        lines = [f"{indent}decltype({frag}) {names[frag]};" for frag in (a, b)]
        lines.append(f"{indent}if ({_at(unit, cond, cond.start_byte, cond.end_byte, var, later)}) {{  // MFMA005: K steps "
                     f"{var} and {var} + {unit.text(step)} in one full-K MFMA per warp")
        for load in loads:
            first = _args(load)[0]
            text = (_at(unit, load, load.start_byte, first.start_byte, var, later) + names[unit.text(first)]
                    + _at(unit, load, first.end_byte, load.end_byte, var, later))
            lines.append(f"{inner}{_QUALIFIED.sub('porter_wmma', text)};")
        lines.append(f"{indent}}} else {{  // an odd last step: the other K half is zeros")
        lines += [f"{inner}porter_wmma::zero_fragment({names[frag]});" for frag in (a, b)]
        lines.append(f"{indent}}}")
        before = mma.parent.prev_named_sibling
        name = mma.child_by_field_name("function")  # after its namespace, which MFMA001 renames
        while name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        edits = (Edit(update.start_byte, update.end_byte, f"{var} += {stride}"),
                 Edit(before.end_byte, before.end_byte, "\n" + "\n".join(lines)),
                 Edit(name.start_byte, mma.end_byte, f"mma_sync_k32({acc}, {a}, {b}, {names[a]}, {names[b]}, {acc})"))
        yield Hit(loop.start_byte, loop.start_byte + 3,
                  f"wmma K loop over `{var}`: steps paired, one full-K v_mfma_f32_16x16x32 per warp for two "
                  "16-deep steps (half the MFMA count)", severity=Severity.info, edits=edits)


def _pairable(unit: SourceFile, loop: Node):
    """(var, step, update, condition, load calls, mma call) of a loop MFMA005 pairs, else None."""
    update, cond, body = (loop.child_by_field_name(f) for f in ("update", "condition", "body"))
    if update is None or cond is None or body is None or body.type != "compound_statement":
        return None
    if update.type != "assignment_expression" or unit.text(update.child_by_field_name("operator")) != "+=":
        return None
    left, step = update.child_by_field_name("left"), update.child_by_field_name("right")
    if left.type != "identifier" or step.type not in ("number_literal", "identifier"):
        return None
    var = unit.text(left)
    if _effects(cond) or step.type == "identifier" and unit.text(step) == var:
        return None
    calls = _calls(body)
    if calls is None or len(calls) < 3 or _name(unit, calls[-1]) != "mma_sync":
        return None
    mma, loads = calls[-1], calls[:-1]
    margs = _args(mma)
    if len(margs) != 4 or any(a.type != "identifier" for a in margs) or unit.text(margs[0]) != unit.text(margs[3]):
        return None
    acc, a, b = (unit.text(x) for x in margs[:3])
    loaded = []
    for load in loads:
        args = _args(load)
        if _name(unit, load) != "load_matrix_sync" or not args or args[0].type != "identifier":
            return None
        if any(_effects(x) for x in args[1:]):
            return None
        loaded.append(unit.text(args[0]))
    if sorted(loaded) != sorted({a, b}) or acc in loaded or a == b:
        return None
    if mma.parent.prev_named_sibling is None or mma.parent.prev_named_sibling.type == "comment":
        return None
    if not all(_plain_fragment(unit, loop, frag) for frag in (a, b)):
        return None
    return var, step, update, cond, loads, mma


def _plain_fragment(unit: SourceFile, loop: Node, name: str) -> bool:
    """Whether `name` is a plain (non-const, non-reference) fragment variable declared in the loop's
    function before the loop (`decltype(name) name_k1;` then declares a fragment to load into) and
    not used after it."""
    scope = loop.parent
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    if scope is None:
        return False
    if any(unit.text(i) == name and i.start_byte >= loop.end_byte for i in unit.captures("(identifier) @i", scope)):
        return False  # read after the loop, where it would hold the last pair's first step
    for decl in unit.captures("(declaration) @d", scope):
        if decl.start_byte >= loop.start_byte:
            continue
        kids = decl.named_children
        if any(k.type == "identifier" and unit.text(k) == name for k in kids):
            return (not any(k.type == "type_qualifier" for k in kids)
                    and any("fragment" in unit.text(k) for k in kids if k.type in ("qualified_identifier", "template_type")))
    return False


def _calls(body: Node) -> list[Node] | None:
    """The call of each statement of `body`, or None when a statement is anything but a call."""
    calls = []
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        call = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if call is None or call.type != "call_expression":
            return None
        calls.append(call)
    return calls


def _name(unit: SourceFile, call: Node) -> str:
    return unit.text(call.child_by_field_name("function")).rsplit("::", 1)[-1].strip()


def _args(call: Node) -> list[Node]:
    return [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]


def _effects(node: Node) -> bool:
    return node.type in _EFFECTS or any(_effects(c) for c in node.named_children)


def _at(unit: SourceFile, node: Node, start: int, end: int, var: str, later: str) -> str:
    """The text of bytes [start, end) of `node` with each identifier `var` replaced by `later`."""
    out, pos = [], start
    for ident in unit.captures("(identifier) @i", node):
        if not start <= ident.start_byte < end or unit.text(ident) != var:
            continue
        out.append(unit.data[pos:ident.start_byte].decode())
        out.append(later)
        pos = ident.end_byte
    out.append(unit.data[pos:end].decode())
    return "".join(out)


def _indent(unit: SourceFile, node: Node) -> str:
    line_start = unit.data.rfind(b"\n", 0, node.start_byte) + 1
    head = unit.data[line_start:node.start_byte].decode()
    return head if not head.strip() else ""
