"""WAVE006: *_sync shuffle or vote whose mask names every lane: use the mask-less HIP form.

Why: HIP's __shfl*_sync, __ballot_sync, __any_sync and __all_sync exist only from ROCm 6.2, stay
    behind -DHIP_ENABLE_WARP_SYNC_BUILTINS until ROCm 7.0, and a ROCm 7 build may switch them off
    with HIP_DISABLE_WARP_SYNC_BUILTINS (llama.cpp does). A port that keeps them, even with a correct
    64-bit mask, does not build on ROCm 6.0-6.4 with default flags. When the mask is every lane
    (a 64-bit all-ones mask) or the lanes now active (`__activemask()`), the call is exactly the
    mask-less __shfl*, __ballot, __any or __all, which every ROCm release has: a wavefront runs in
    lockstep, and the mask-less calls act over the active lanes.

Before:
    unsigned long long votes = __ballot_sync(__activemask(), keep);
    v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);
After:
    unsigned long long votes = __ballot(keep);
    v += __shfl_xor(v, 1);

Fix safety: safe: the same lanes take part before and after. A mask that names some lanes only
    (a variable, a ballot result) is left alone: __ballot_sync(m, p) is __ballot(p) & m, which a
    person writes where it matters. 32-bit full masks are WAVE001's (same rewrite).
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_sites import every_lane
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile


@rule(id="WAVE006", lang="cuda", severity="warning", fix="safe",
      trigger=any_of(patterns.MASKLESS))
def sync_portability(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _sync_portability(unit, ctx))


def _sync_portability(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        for callee, call in patterns.calls(view, frozenset(patterns.MASKLESS)):
            arguments = patterns.args(call)
            if not arguments or not every_lane(unit, view, arguments[0]):
                continue
            start, end, text = patterns.maskless_prefix(view.src, callee, call)
            yield Hit(*view.span(call), f"{callee} with `{view.src.text(arguments[0])}` (every lane) builds only on "
                      f"ROCm 7, or 6.2+ with -DHIP_ENABLE_WARP_SYNC_BUILTINS: the mask-less "
                      f"{patterns.MASKLESS[callee]} is the same call in every ROCm release",
                      edits=(Edit(start=view.base + start, end=view.base + end, text=text),))
