"""TRI006: warp specialization hints written for Hopper/Blackwell.

Why: `tl.range(..., warp_specialize=True)` and the autotune knobs `num_consumer_groups`,
`num_buffers_warp_spec` split a program into producer (TMA) and consumer (wgmma/tcgen05) warp
groups. gfx950 has neither TMA nor warpgroup MMA; AMD's backend has its own pipelining (stream
pipeliner, block ping-pong) chosen by num_stages and num_warps (TRI020). The hint is a
performance hint only, so it is dropped; `num_consumer_groups`/`num_buffers_warp_spec` are not
even `triton.Config` parameters any more in Triton 3.9 (a TypeError at import).

Before:
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
After:
    for k in tl.range(0, K, BLOCK_K):

Fix safety: safe: warp specialization changes the schedule, never the values computed.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit

HINTS = {"triton.language.range": ("warp_specialize",),
         "triton.Config": ("num_consumer_groups", "num_buffers_warp_spec")}


def _passes_hints(unit: PythonFile) -> bool:
    if not any(k.encode() in unit.data for hints in HINTS.values() for k in hints):
        return False
    facts = unit.facts
    return facts is None or any(k in facts.keywords for hints in HINTS.values() for k in hints)


@rule(id="TRI006", lang="triton", severity="info", fix="safe", when=_passes_hints)
def warp_specialize(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    for call in src.find(unit.module, cst.Call):
        hints = HINTS.get(src.call_name(call, names) or "")
        if not hints:
            continue
        for i, a in enumerate(call.args):
            if a.keyword is None or a.keyword.value not in hints:
                continue
            s, e = unit.span(a)
            # Remove the argument with the comma that joins it to its neighbour.
            if i > 0:
                edit = Edit(unit.span(call.args[i - 1].value)[1], unit.span(a.value)[1], "")
            else:
                nxt = call.args[i + 1] if i + 1 < len(call.args) else None
                edit = Edit(s, unit.span(nxt)[0] if nxt else e, "")
            yield Hit(s, e, f"{a.keyword.value}: a Hopper/Blackwell warp-specialization hint; dropped on gfx950",
                      edits=(edit,))

