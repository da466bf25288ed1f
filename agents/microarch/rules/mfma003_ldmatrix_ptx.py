"""MFMA003: inline PTX ldmatrix (m8n8 .x1/.x2/.x4, optionally .trans, .shared.b16) rewritten to an LDS helper.

Why: ldmatrix feeds mma.sync from shared memory and is PTX, which clang cannot assemble for
    gfx950. porter_ldmatrix_x{1,2,4}[_trans] (shims/compat/mfma_gfx950.h, added by SHIM020)
    return the same per-thread registers: threads 8i..8i+7 of the warp name the rows of 8x8
    matrix i (an LDS byte address, as from __cvta_generic_to_shared, which the header also
    defines), thread 4g + q receives {M_i[g][2q], M_i[g][2q+1]} ({M_i[2q][g], M_i[2q+1][g]} with
    .trans). Each 32-lane half of a wave is one warp: the row addresses come from its own lanes
    (ds_bpermute), and each lane reads its words from LDS.

Before:
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(addr));
After:
    porter_ldmatrix_x4(a[0], a[1], a[2], a[3], addr);

Fix safety: safe: the same 16-bit values land in the same registers of the same threads.
    Other ldmatrix forms (.b8, m16n16, .x8) are reported, not rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_STATEMENTS = "(expression_statement (gnu_asm_expression)) @s"


@rule(id="MFMA003", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["ldmatrix"]))
def ldmatrix_ptx(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for statement in unit.captures(_STATEMENTS):
        asm = mfma.parse_asm(unit, statement)
        if asm is None or not asm.mnemonic.startswith("ldmatrix"):
            continue
        m = mfma.LDMATRIX.match(asm.mnemonic)
        count = int(m.group(1)) if m else 0
        if m is None or tuple(len(g) for g in asm.groups) != (count, 1):
            yield Hit(statement.start_byte, statement.end_byte,
                      f"`{asm.mnemonic}`: no gfx950 helper for this ldmatrix form", severity=Severity.error)
            continue
        name = f"porter_ldmatrix_x{count}{'_trans' if m.group(2) else ''}"
        call = f"{name}({', '.join(asm.groups[0] + asm.groups[1])});"
        yield Hit(statement.start_byte, statement.end_byte, f"`{asm.mnemonic}` -> {name} (LDS reads + ds_bpermute)",
                  edits=(Edit(statement.start_byte, statement.end_byte, call),))
