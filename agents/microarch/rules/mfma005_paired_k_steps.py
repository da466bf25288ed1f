"""MFMA005: a wmma K loop paired, two 16-deep steps per full-K v_mfma_f32_16x16x32.

Why: MFMA001's porter_wmma::mma_sync runs each warp's 16x16x16 step on half of a
    v_mfma_f32_16x16x32's K (the two warps of a wave share one instruction, each with 16 of its 32
    K rows and half its A rows zero), so a 16x16 tile costs two MFMAs per 16 of K: half the matrix
    cores' rate. Two consecutive K steps of one warp fill the whole instruction: with both steps
    in hand, porter_wmma::mma_sync_k32 (shims/compat/mfma_gfx950.h) issues one MFMA per warp for
    K 32 (step k from lanes 0-31, step k + 1 from lanes 32-63, moved by v_permlane32_swap), so the
    wave issues 2 MFMAs where 4 ran before: the v_mfma count of the loop halves.

    The rewrite applies to a `for` loop (`var += step`) whose body is the load_matrix_sync calls
    that fill the A and B fragments, then one mma_sync(acc, a, b, acc), optionally after
    declarations of per-step locals and inside one bounds-check `if`: the loop steps twice as far;
    the next step's fragments are loaded where the loop condition and the check hold at
    var + step (its locals redeclared there), zeros otherwise (an odd last step), and both steps
    go to one paired call.

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
      decltype(af) af_k1;
      decltype(bf) bf_k1;
      if ((kk + 16) < k) {  // MFMA005: K steps kk and kk + 16 in one full-K MFMA per warp
        wmma::load_matrix_sync(af_k1, a + (kk + 16), k);
        wmma::load_matrix_sync(bf_k1, b + (kk + 16), k);
      } else {  // no next step: the other K half is zeros
        porter_wmma::zero_fragment(af_k1);
        porter_wmma::zero_fragment(bf_k1);
      }
      nvcuda::wmma::mma_sync_k32(acc, af, bf, af_k1, bf_k1, acc);
    }

Fix safety: safe: the same loads and the same products (the second step's loads are the next
    iteration's, read at var + step; a step past the end contributes zeros times zeros); the
    float sums of two steps are added in the MFMA's order instead of one after the other. Paired
    only where nothing the next step evaluates early (condition, check, locals, addresses) has
    side effects or reads a fragment, the fragments are plain locals not read after the loop,
    and a bounds check that fails stays failed at later steps (each `&&` term loop-invariant or
    `var < bound` / `var <= bound`, var possibly through a local equal to it), so no step that
    the loop runs is skipped. A wave split by a branch (one warp left) takes the helpers' VALU
    path. Not with --matrix rocwmma, and not in a file MFMA001 leaves alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

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


@dataclass(frozen=True)
class KLoop:
    """A wmma K loop MFMA005 pairs: `for (...; cond; var += step) { decls; [if (guard) {] loads; mma [}] }`."""

    var: str
    step: Node
    update: Node
    cond: Node
    decls: tuple[Node, ...]  # locals of one step, declared before the loads (or the guard)
    guard: Node | None  # the condition of an `if` around the loads and the mma_sync
    loads: tuple[Node, ...]
    mma: Node


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    return b"mma_sync" in data and b"nvcuda" in data and ctx.options.matrix == "porter"


@rule(id="MFMA005", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def paired_k_steps(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if ctx.options.matrix != "porter":  # rocWMMA's fragments are per wave: no porter_wmma pair to call
        return
    if next(mfma.wmma_unsupported(unit, ctx.included(unit)), None) is not None:
        return
    taken = set(re.findall(r"\w+", unit.data.decode(errors="replace")))
    for loop in unit.captures(_LOOPS):
        try:
            k = _pairable(unit, loop)
        except _Missing:
            continue  # a loop with a parse error inside: nothing to pair
        if k is None:
            continue
        acc, a, b = (unit.text(x) for x in _args(k.mma)[:3])
        names = {}
        for frag in (a, b):
            name = f"{frag}_k1"
            while name in taken:
                name += "_"
            names[frag] = name
        step = unit.text(k.step)
        stride = str(2 * int(step)) if k.step.type == "number_literal" else f"2 * {step}"
        later = f"({k.var} + {step})"
        indent = _indent(unit, k.mma)
        inner = indent + ("  " if k.decls else "")
        body = indent + ("  " if not k.decls else "    ")
        lines = [f"{indent}decltype({frag}) {names[frag]};" for frag in (a, b)]
        note = f"  // MFMA005: K steps {k.var} and {k.var} + {step} in one full-K MFMA per warp"
        if k.decls:  # the next step's locals, shadowing this step's in a block
            lines.append(f"{indent}{{{note}")
            lines += [f"{inner}{_at(unit, d, d.start_byte, d.end_byte, k.var, later)}" for d in k.decls]
            note = ""
        test = _at(unit, k.cond, k.cond.start_byte, k.cond.end_byte, k.var, later)
        if k.guard is not None:
            test += f" && ({_at(unit, k.guard, k.guard.start_byte, k.guard.end_byte, k.var, later)})"
        lines.append(f"{inner}if ({test}) {{{note}")
        for load in k.loads:
            first = _args(load)[0]
            text = (_at(unit, load, load.start_byte, first.start_byte, k.var, later) + names[unit.text(first)]
                    + _at(unit, load, first.end_byte, load.end_byte, k.var, later))
            lines.append(f"{body}{_QUALIFIED.sub('porter_wmma', text)};")
        lines.append(f"{inner}}} else {{  // no next step: the other K half is zeros")
        lines += [f"{body}porter_wmma::zero_fragment({names[frag]});" for frag in (a, b)]
        lines.append(f"{inner}}}")
        if k.decls:
            lines.append(f"{indent}}}")
        before = k.loads[-1].parent  # the last load's statement: the next step's loads follow it
        if before is None:
            continue
        callee = _field(k.mma, "function")  # after its namespace, which MFMA001 renames
        while callee.type == "qualified_identifier":
            callee = _field(callee, "name")
        edits = (Edit(k.update.start_byte, k.update.end_byte, f"{k.var} += {stride}"),
                 Edit(before.end_byte, before.end_byte, "\n" + "\n".join(lines)),
                 Edit(callee.start_byte, k.mma.end_byte, f"mma_sync_k32({acc}, {a}, {b}, {names[a]}, {names[b]}, {acc})"))
        yield Hit(loop.start_byte, loop.start_byte + 3,
                  f"wmma K loop over `{k.var}`: steps paired, one full-K v_mfma_f32_16x16x32 per warp for two "
                  "16-deep steps (half the MFMA count)", severity=Severity.info, edits=edits)


def _pairable(unit: SourceFile, loop: Node) -> KLoop | None:
    update, cond, body = (loop.child_by_field_name(f) for f in ("update", "condition", "body"))
    if update is None or cond is None or body is None or body.type != "compound_statement":
        return None
    if update.type != "assignment_expression" or unit.text(_field(update, "operator")) != "+=":
        return None
    left, step = _field(update, "left"), _field(update, "right")
    if left.type != "identifier" or step.type not in ("number_literal", "identifier"):
        return None
    var = unit.text(left)
    if _effects(cond) or step.type == "identifier" and unit.text(step) == var:
        return None
    stmts = [x for x in body.named_children if x.type != "comment"]
    decls = tuple(x for x in stmts if x.type == "declaration")
    if stmts[:len(decls)] != list(decls) or any(_effects_in_decl(unit, d) for d in decls):
        return None
    rest, guard = stmts[len(decls):], None
    if len(rest) == 1 and rest[0].type == "if_statement":
        branch = rest[0]
        inner = branch.child_by_field_name("consequence")
        guard = branch.child_by_field_name("condition")
        guard = guard.child_by_field_name("value") if guard is not None else None
        if (branch.child_by_field_name("alternative") is not None or inner is None
                or inner.type != "compound_statement" or guard is None or _effects(guard)
                or not _stops_for_good(unit, guard, var, decls)):
            return None
        rest = [x for x in inner.named_children if x.type != "comment"]
    step_calls = _step(unit, rest)
    if step_calls is None:
        return None
    loads, mma = step_calls
    if not all(_plain_fragment(unit, loop, unit.text(frag)) for frag in _args(mma)[1:3]):
        return None
    # The next step's condition, guard, locals and addresses are evaluated before this step's
    # mma_sync runs: none may read a fragment.
    frags = {unit.text(x) for x in _args(mma)[:3]}
    read = [cond, *decls, *([guard] if guard is not None else []), *(x for ld in loads for x in _args(ld)[1:])]
    if any(_mentions(unit, x, frags) for x in read):
        return None
    return KLoop(var, step, update, cond, decls, guard, loads, mma)


def _step(unit: SourceFile, stmts: list[Node]) -> tuple[tuple[Node, ...], Node] | None:
    """(load calls, mma call) of one K step: load_matrix_sync of exactly the A and B fragments
    (arguments without side effects), then mma_sync(acc, a, b, acc)."""
    calls = _calls(stmts)
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
    return tuple(loads), mma


def _effects_in_decl(unit: SourceFile, decl: Node) -> bool:
    """A declaration that does more than initialise plain locals: side effects, arrays, statics, references."""
    if any(k.type in ("storage_class_specifier", "type_qualifier") and unit.text(k) != "const"
           for k in decl.named_children):
        return True
    declarators = [k for k in decl.named_children if k.type in ("init_declarator", "identifier")]
    return (not declarators or any(k.type == "init_declarator" and _field(k, "declarator").type != "identifier"
                                   for k in declarators) or _effects(decl))


def _stops_for_good(unit: SourceFile, guard: Node, var: str, decls: tuple[Node, ...]) -> bool:
    """Whether a guard false at `var` stays false at every later step: each `&&` term either does not
    depend on the loop (var or a local initialised from it) or is `x < bound` / `x <= bound` with x
    the loop variable or a local initialised to exactly it. Then pairing skips no step the loop runs
    (a step whose guard fails adds nothing, and the paired call gives it zeros)."""
    moving = {var}
    exact = {var}
    for d in decls:
        for k in d.named_children:
            if k.type != "init_declarator":
                continue
            name, value = unit.text(_field(k, "declarator")), k.child_by_field_name("value")
            if value is not None and _mentions(unit, value, moving):
                moving.add(name)
                if unit.text(value) == var:
                    exact.add(name)
    terms, todo = [], [guard]
    while todo:
        node = todo.pop()
        while node.type in ("condition_clause", "parenthesized_expression") and node.named_children:
            node = node.named_children[0]
        if node.type == "binary_expression" and unit.text(_field(node, "operator")) == "&&":
            todo += [_field(node, "left"), _field(node, "right")]
        else:
            terms.append(node)
    for t in terms:
        if not _mentions(unit, t, moving):
            continue
        if t.type != "binary_expression" or unit.text(_field(t, "operator")) not in ("<", "<="):
            return False
        left, right = _field(t, "left"), _field(t, "right")
        if left.type != "identifier" or unit.text(left) not in exact or _mentions(unit, right, moving):
            return False
    return True


def _mentions(unit: SourceFile, node: Node, names: set[str]) -> bool:
    return any(unit.text(i) in names for i in unit.captures("(identifier) @i", node)) or (
        node.type == "identifier" and unit.text(node) in names)


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


def _calls(stmts: list[Node]) -> list[Node] | None:
    """The call of each statement, or None when a statement is anything but a call."""
    calls = []
    for stmt in stmts:
        call = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if call is None or call.type != "call_expression":
            return None
        calls.append(call)
    return calls


def _name(unit: SourceFile, call: Node) -> str:
    return unit.text(_field(call, "function")).rsplit("::", 1)[-1].strip()


def _args(call: Node) -> list[Node]:
    return [a for a in _field(call, "arguments").named_children if a.type != "comment"]


class _Missing(LookupError):
    """A node lacks a field tree-sitter fills on code that parsed (the loop holds a parse error)."""


def _field(node: Node, name: str) -> Node:
    child = node.child_by_field_name(name)
    if child is None:
        raise _Missing(f"{node.type} at byte {node.start_byte} has no {name}")
    return child


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
