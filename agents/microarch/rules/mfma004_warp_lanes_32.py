"""MFMA004: 32-lane warp arithmetic in tensor-core code stays 32-lane under porter's MFMA mapping.

Why: porter's MFMA helpers (MFMA001-MFMA003) run two 32-lane warps per wave64: lanes 0-31 and
    32-63 are warps 2w and 2w+1, and each keeps its own 16x16 (wmma) or 16x8 (mma.sync) tile, so a
    block keeps its warps and tiles without a launch change. In a function that issues wmma,
    mma.sync or ldmatrix (or calls one in the same file that does), `threadIdx.x / 32`,
    `% 32`, `& 31`, `>> 5`, `warp * 32` and `<< 5` therefore still mean "warp" and "lane within the warp", and
    rewriting them to warpSize (64) would merge two warps' tiles and halve the block's coverage.
    The literal is named instead: porter_mfma::warp_threads (32) and warp_shift (5), declared
    with the helpers (SHIM020), which also keeps WAVE003 from turning it into warpSize.

Before:
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
After:
    const int warp = threadIdx.x / porter_mfma::warp_threads, lane = threadIdx.x % porter_mfma::warp_threads;

Fix safety: safe with --matrix porter (the value is unchanged: 32). With --matrix rocwmma the
    fragments are per wave64, so the kernel's warps per block halve: reported, not rewritten.
    Inside an mma.sync step MFMA006 pairs, the literal is left to that rewrite (its paired call
    carries the expression as written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import mfma
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

NAMED = {"/": (32, "porter_mfma::warp_threads"), "%": (32, "porter_mfma::warp_threads"),
         "&": (31, "(porter_mfma::warp_threads - 1)"), ">>": (5, "porter_mfma::warp_shift"),
         "*": (32, "porter_mfma::warp_threads"), "<<": (5, "porter_mfma::warp_shift")}
_TENSOR_CORE = re.compile(r"\bwmma\s*::|\bnvcuda\s*::|mma\.sync|ldmatrix|\bporter_(wmma|mma_|ldmatrix)")
_FUNCTIONS = "(function_definition declarator: (function_declarator declarator: (_) @name)) @f"
_CALLS = "(call_expression function: (identifier) @fn)"


# Every match of _TENSOR_CORE holds one of these words, and the decoded text's ASCII characters are
# the bytes' own (errors="replace" adds only U+FFFD): where the bytes hold none, the text has no
# match. The pattern over the decoded text (Unicode \b) tried every character of every file:
# 149 ms over bench/translate.py's 300-file corpus, the words 4 ms.
_TENSOR_CORE_WORDS = any_of(["wmma", "nvcuda", "mma.sync", "ldmatrix", "porter_mma_"])


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    return _TENSOR_CORE_WORDS(data, ctx) and _TENSOR_CORE.search(data.decode("utf-8", "replace")) is not None


@rule(id="MFMA004", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def warp_lanes_32(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    paired: list[tuple[int, int]] | None = None  # MFMA006's spans, read at the first literal
    for function in _tensor_core_functions(unit):
        for expr in unit.captures("(binary_expression) @e", function):
            op = unit.text(expr.child_by_field_name("operator"))
            if op not in NAMED:
                continue
            sides = [("right", "left"), ("left", "right")] if op == "*" else [("right", "left")]
            hit = None
            for lit_side, other_side in sides:
                number = patterns.unwrap(expr.child_by_field_name(lit_side))
                lit = patterns.literal(unit.text(number)) if number.type == "number_literal" else None
                other = expr.child_by_field_name(other_side)
                if lit and lit[0] == NAMED[op][0] and patterns.indexes_threads(unit, other):
                    hit = number
                    break
            if hit is None:
                continue
            number = hit
            text = " ".join(unit.text(expr).split())
            if ctx.options.matrix == "rocwmma":
                yield Hit(expr.start_byte, expr.end_byte, f"`{text}`: rocWMMA fragments span a wave64, so this "
                          "32-lane warp index no longer names a fragment's owner; the launch needs a look",
                          severity=Severity.warning)
                continue
            if paired is None:
                paired = mfma.paired_mma_spans(unit) if b"mma.sync" in unit.data else []
            if mfma.within(paired, number.start_byte, number.end_byte):
                continue  # MFMA006 rewrites these bytes: rules take edits in id order, and 004 < 006
            yield Hit(number.start_byte, number.end_byte,
                      f"`{text}`: a 32-lane warp under porter's MFMA mapping (two warps per wave64)",
                      edits=(Edit(number.start_byte, number.end_byte, NAMED[op][1]),))


def _tensor_core_functions(unit: SourceFile):
    """Functions that issue tensor-core operations, or call a function of this file that does."""
    found = [(unit.text(m["name"][0]), m["f"][0]) for m in unit.matches(_FUNCTIONS)]
    direct = {name for name, f in found if _TENSOR_CORE.search(unit.text(f.child_by_field_name("body") or f))}
    users = {name for name, f in found
             if name in direct or any(unit.text(c) in direct for c in unit.captures(_CALLS, f))}
    return [f for name, f in found if name in users]
