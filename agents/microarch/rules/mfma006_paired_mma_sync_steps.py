"""MFMA006: mma.sync m16n8k16 K steps paired, two k steps of two n8 tiles per full-K v_mfma_f32_16x16x32.

Why: MFMA002's porter_mma_m16n8k16_{f16,bf16} runs each warp's m16n8k16 step on half of a
    v_mfma_f32_16x16x32's K (the two warps of a wave share one instruction, each with its own
    rows and K half), so a warp's tile costs one MFMA per 8 columns per 16 of K: half the matrix
    cores' rate. Pairing two k16 steps of one m16n8 accumulator cannot fill it: the two warps'
    operands are independent, and one 16x16x32 product holds two independent products only
    block-diagonally (half its K or half its outputs each). Two k16 steps of two n8 tiles that
    share the A fragment can: per warp they are D (16 x 16) = [A0 A1] (16 x 32) B (32 x 16), one
    MFMA, so porter_mma_m16n16k32_{f16,bf16} (shims/compat/mfma_gfx950.h) issues 2 MFMAs per
    wave where 4 ran.

    The rewrite applies to a K loop nest over k steps and n8 tiles whose body is one mma (the asm
    statement, or a function or function-like macro whose body is that asm, called with
    `acc[n], a[k], b[k][n]` or `acc[n][0], ..., a[k][0], ...`), both loops counting from 0 by 1
    to an even constant: both loops step by 2 around the paired call. A count porter cannot
    evaluate (a template parameter) is tested: `if ((kTiles) % 2 == 0) { paired } else { as it
    was }`. The same nest unrolled by hand (consecutive statements, each accumulator stepped by a0
    then a1) becomes the paired calls. Other mma.sync loops (odd trip counts, one accumulator, a K
    loop that also loads the next step's registers, as flash-attention kernels write it) stay
    unpaired, with a note saying why; their asm is MFMA002's.

Before:
    for (int k = 0; k < 2; ++k)
      for (int n = 0; n < 4; ++n)
        mma_bf16(acc[n], a[k], b[k][n], acc[n]);  // a function whose body is the mma.sync asm
After:
    for (int k = 0; k < 2; k += 2)
      for (int n = 0; n < 4; n += 2)
        porter_mma_m16n16k32_bf16(acc[n], acc[n + 1], a[k], a[k + 1], b[k][n], b[k][n + 1], b[k + 1][n], b[k + 1][n + 1]);

Fix safety: safe for m16n8k16 .row.col with f16.f16 or bf16.bf16 inputs and f32 C/D, as
    MFMA002: the same products into the same accumulators, each accumulator's two k steps summed
    in the MFMA's order. Paired only where the loop body is the one mma and nothing else, the
    accumulator is both C and D, its registers are plain `base[0..n]` arrays whose indexes
    neither write nor call, and the loops visit every (k, n) pair of the original; a hand-unrolled
    run only where every accumulator gets exactly two k steps and the accumulators sharing them
    come in twos. An asm step this rule pairs is rewritten here, not by MFMA002 (the guarded
    form's else branch holds MFMA002's unpaired call).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from porter.agents.microarch import mfma
from porter.agents.microarch.mfma import MmaNest, MmaStep
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_LOOPS = "(for_statement) @f"


@rule(id="MFMA006", lang="cuda", severity="info", fix="safe",
      trigger=any_of(["mma.sync"]))
def paired_mma_sync_steps(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    wrappers = mfma.mma_wrappers(unit)
    inner_loops: set[int] = set()  # the inner loops of the nests seen (loops come outer first)
    for loop in unit.captures(_LOOPS):
        nest = mfma.mma_nest(unit, loop, wrappers)
        if nest is None:
            body = mfma.only_statement(mfma.loop_body(loop))
            step = mfma.mma_step(unit, body, wrappers) if body is not None else None
            if isinstance(step, MmaStep) and loop.start_byte not in inner_loops:
                yield Hit(loop.start_byte, loop.start_byte + 3, f"mma.sync loop left unpaired: {_lone(unit, loop, step)}",
                          severity=Severity.info)
            continue
        inner = mfma.only_statement(mfma.loop_body(loop))
        if inner is not None:
            inner_loops.add(inner.start_byte)
        if isinstance(nest, str):
            yield Hit(loop.start_byte, loop.start_byte + 3, f"mma.sync K loop left unpaired: {nest}",
                      severity=Severity.info)
            continue
        yield _paired(unit, nest)
    for run in mfma.mma_runs(unit, wrappers):
        hit = _paired_run(unit, run)
        if hit is not None:
            yield hit


def _lone(unit: SourceFile, loop: Node, step: MmaStep) -> str:
    """Why a single loop around one mma is not paired."""
    counter = mfma.loop_counter(unit, loop)
    var = counter[0] if counter else ""
    if var and mfma.mentions(step.acc, var) and not mfma.mentions(step.a, var):
        return (f"a loop over n8 tiles (`{var}`) whose k steps come from an enclosing loop that does more "
                "(loads): pairing needs two k steps' registers in one nest")
    if var and mfma.mentions(step.a, var) and not mfma.mentions(step.acc, var):
        return (f"a loop over k steps (`{var}`) into one accumulator: two k steps of one m16n8 tile cannot "
                "fill a v_mfma_f32_16x16x32 (the two warps' operands are independent)")
    return "the loop's accumulator and A registers do not follow it as n8 tiles or k steps"



def _next(text: str, var: str) -> str:
    """`text` at var + 1, in one pass over every use of `var` (not a member or longer name):
    `acc[n]` -> `acc[n + 1]`, any other use parenthesised: `b[k * 2 + n]` -> `b[(k + 1) * 2 + n]`."""
    v = re.escape(var)
    return re.sub(rf"\[\s*{v}\s*\]|(?<![\w.>]){v}(?!\w)",
                  lambda m: f"[{var} + 1]" if m.group().startswith("[") else f"({var} + 1)", text)


def _paired(unit: SourceFile, nest: MmaNest) -> Hit:
    outer, inner, step, loop_vars, kvar, nvar, guards = nest
    updates = [u for x in (outer, inner) if (u := x.child_by_field_name("update")) is not None]  # both: loop_counter
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
    block = (f"{first}if ({' && '.join(guards)}) {{  // MFMA006: k steps and n8 tiles paired where both counts "
             f"are even\n{text(list(edits))}\n{indent}}} else {{\n{text(original)}\n{indent}}}")
    return Hit(outer.start_byte, outer.start_byte + 3, message + f" where {' and '.join(guards)}",
               severity=severity, edits=(Edit(start, end, block),))


def _unpaired_call(unit: SourceFile, step: MmaStep) -> str:
    """MFMA002's call for the asm `step` (the guarded form's else branch)."""
    asm = mfma.parse_asm(unit, step.node)
    if asm is None:
        raise ValueError(f"MFMA006: the asm step at byte {step.node.start_byte} no longer parses")
    return f"porter_mma_m16n8k16_{step.dtype}({', '.join(x for g in asm.groups for x in g)});"


def _paired_run(unit: SourceFile, run: list[MmaStep]) -> Hit | None:
    """Consecutive steps (an unrolled K loop nest) as paired calls (mfma.run_pairs). The steps of
    different accumulators are independent (the accumulators are neither A nor B), so each pair of
    accumulators is issued at the place of its first step, its two k steps in order."""
    pairs = mfma.run_pairs(run)
    if pairs is None:
        return None
    by_acc, groups = pairs
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
