"""WAVE007: __syncwarp, which HIP has only from ROCm 7.0.

Why: HIP added __syncwarp in ROCm 7.0 (HIP 7.0 changelog: "Added warp level primitives:
    __syncwarp and reduce intrinsics"); a port that calls it does not build on ROCm 6.x. On CDNA a
    wavefront runs in lockstep, so what __syncwarp still has to do is order memory between the
    lanes of the wave (shared-memory writes before the call are seen by reads after it) and keep
    the compiler from moving memory operations across it: a release fence, a wave barrier and an
    acquire fence at wavefront scope, which is how ROCm 7 implements it.

Before:
    __syncwarp();
    __syncwarp(0xffffffff);
After:
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
    (the same for the masked call)

Fix safety: safe for any mask: the lanes of a wavefront cannot diverge in time, so a partial mask
    asks for nothing more than a full one, and the clang builtins exist in every ROCm compiler.
    A mask with side effects (a call other than __activemask()) is reported, not rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

WAVE_SYNC = ('__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
             '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront")')
_SIDE_EFFECTS = "[(call_expression function: (_) @fn) (assignment_expression) @a (update_expression) @u]"


@rule(id="WAVE007", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["__syncwarp"]))
def syncwarp(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for view in patterns.views(unit):
        for _, call in patterns.calls(view, frozenset({"__syncwarp"})):
            arguments = patterns.args(call)
            effects = [n for a in arguments for n in view.src.captures(_SIDE_EFFECTS, a)
                       if view.src.text(n) != "__activemask"]
            said = "__syncwarp exists in HIP only from ROCm 7.0; on a lockstep wavefront it is a wave barrier with fences"
            if effects:
                yield Hit(*view.span(call), f"{said}; its mask has side effects, so it is left for a person")
                continue
            start, end = view.span(call)
            parent = call.parent
            # A comma expression inside an expression statement needs no parentheses; elsewhere it does.
            text = WAVE_SYNC if parent is not None and parent.type == "expression_statement" else f"({WAVE_SYNC})"
            yield Hit(start, end, said, edits=(Edit(start=start, end=end, text=text),))
