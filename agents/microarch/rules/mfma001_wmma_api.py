"""MFMA001: nvcuda::wmma tensor-core fragments rewritten to gfx950 MFMA helpers (or rocWMMA).

Why: HIP has no nvcuda::wmma and no <mma.h>; a hipified kernel that multiplies 16x16x16 tiles
    with wmma::fragment / load_matrix_sync / mma_sync / store_matrix_sync / fill_fragment stops
    compiling for gfx950. porter's compat header (shims/compat/mfma_gfx950.h, added by SHIM020)
    provides the same API as `porter_wmma` on v_mfma_f32_16x16x32_{f16,bf16}, gfx950's full-rate
    16-bit matrix instruction; `--matrix rocwmma` rewrites to rocWMMA instead.

    Warp -> wave: a wave64 carries two 32-lane warps (lanes 0-31, 32-63), so the block keeps its
    thread count, its warps (`threadIdx.x / 32`) and each warp's 16x16 tile; no launch changes.
    Each half-wave calls the helpers as the warp called wmma. One 16x16x32 MFMA serves both
    halves: half h supplies K rows 16h..16h+15 of the MFMA's B operand (its own 16x16 B tile) and
    A rows 8h..8h+7 (8 rows of its own A tile, the rest zero), and gets D rows 8h..8h+7, so each
    warp's tile is two MFMAs (rows 0-7 and 8-15) and no data crosses halves: half the
    instruction's K is used, and MFMA005 pairs a K loop's steps to fill it. The fragments load
    from the same memory, with the same ldm stride and layouts, as the wmma calls did. Where one
    warp of a wave has left (an edge tile), the helper computes its half on the VALU instead.
    Operand layouts follow AMD's published v_mfma_f32_16x16x32 layout (see the header).

Before:
    #include <mma.h>
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    nvcuda::wmma::mma_sync(acc, a, b, acc);
After:
    namespace wmma = porter_wmma;  // declared by porter_compat.h (SHIM020); rocwmma with --matrix rocwmma
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    porter_wmma::mma_sync(acc, a, b, acc);

Fix safety: safe for 16x16x16 fragments of half/__half/__hip_bfloat16 with float accumulators, a
    shape spelled as 16 or as a name the file or a project header it includes defines as 16
    (#define, const, constexpr: cuda-samples' WMMA_M/WMMA_N/WMMA_K):
    exact (same products, float accumulation; the order of the float sums inside one MFMA is the
    hardware's, as it is inside one wmma::mma_sync). Any other shape or type (m32n8k16, m8n32k16,
    tf32, int8, half accumulators, experimental namespaces) leaves the whole file unchanged and
    is reported. With --matrix rocwmma the rewrite targets rocWMMA's API of the same names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

NAMESPACE = {"porter": "porter_wmma", "rocwmma": "rocwmma"}
INCLUDE = {"porter": "", "rocwmma": "#include <rocwmma/rocwmma.hpp>\n"}
_MMA_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]mma\.h[>\"][^\n]*\n?", re.M)
_USING = re.compile(rb"\busing\s+namespace\s+nvcuda\s*(::\s*wmma\s*)?;")
_QUALIFIED = re.compile(rb"\bnvcuda\s*::\s*wmma\b")


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    return b"nvcuda" in data or b"mma.h" in data


@rule(id="MFMA001", lang="cuda", severity="error", fix="safe", trigger=_trigger)
def wmma_api(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    matrix = ctx.options.matrix
    blockers = list(mfma.wmma_unsupported(unit, ctx.included(unit)))
    for start, end, why in blockers:
        yield Hit(start, end, f"{why}: no gfx950 MFMA rewrite; the file's wmma code is left for a person",
                  severity=Severity.error)
    fixed = not blockers
    target = NAMESPACE[matrix]
    for m in _MMA_INCLUDE.finditer(unit.data):
        if unit.is_code(unit.data.index(b"#", m.start())):
            edits = (Edit(m.start(), m.end(), INCLUDE[matrix]),) if fixed else ()
            what = "porter_compat.h (SHIM020) declares porter_wmma" if matrix == "porter" else "<rocwmma/rocwmma.hpp>"
            yield Hit(m.start(), m.end() - 1, f"<mma.h> has no HIP counterpart: {what}", edits=edits)
    for m in _USING.finditer(unit.data):
        if not unit.is_code(m.start()):
            continue
        text = f"using namespace {target};" if m.group(1) else f"namespace wmma = {target};"
        yield Hit(m.start(), m.end(), f"nvcuda::wmma -> {target} (gfx950 MFMA)",
                  edits=(Edit(m.start(), m.end(), text),) if fixed else ())
    for m in _QUALIFIED.finditer(unit.data):
        if unit.is_code(m.start()):
            yield Hit(m.start(), m.end(), f"nvcuda::wmma -> {target} (gfx950 MFMA)",
                      edits=(Edit(m.start(), m.end(), target),) if fixed else ())
