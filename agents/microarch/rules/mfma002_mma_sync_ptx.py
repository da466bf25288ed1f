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

    That uses half of the instruction's K: MFMA006 pairs a K loop nest's steps (two k steps of two
    n8 tiles sharing A) to fill it, and rewrites the asm of the steps it pairs itself; this rule
    rewrites every other mma.sync statement, one helper call each.

Before:
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
After:
    porter_mma_m16n8k16_bf16(d[0], d[1], d[2], d[3], a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3]);

    An asm a `#define` holds (`#define HMMA16816(RD0, ...) asm volatile(...)`) is rewritten in the
    macro: it then calls the helper.

Fix safety: safe for m16n8k16 .row.col with f16.f16 or bf16.bf16 inputs and f32 C/D: exact
    (same register contents out, float accumulation). Other mma.sync shapes and types are
    reported, not rewritten. The same helper serves --matrix rocwmma (rocWMMA has no
    per-register mma.sync counterpart).
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_STATEMENTS = "(expression_statement (gnu_asm_expression)) @s"


@rule(id="MFMA002", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["mma.sync"]))
def mma_sync_ptx(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    # The steps MFMA006 pairs are its to rewrite (both rules read the original text, in one pass).
    paired = mfma.paired_mma_spans(unit)
    # The file's statements, then the asm a #define holds (`#define HMMA16816(RD0, ...) asm volatile(...)`:
    # the macro becomes a call of the helper; its uses are left as they are).
    for view in patterns.views(unit):
        for statement in view.src.captures(_STATEMENTS):
            if view.base == 0 and mfma.within(paired, statement.start_byte, statement.end_byte):
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
