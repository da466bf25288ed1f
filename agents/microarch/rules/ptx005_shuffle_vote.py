"""PTX005: inline PTX warp shuffles and votes (shfl.sync.*, vote.sync.*, activemask).

Why: `shfl.sync.bfly.b32` and `vote.sync.ballot.b32` are PTX, which does not assemble for
    AMDGCN. They become HIP's cross-lane functions, with wave64 semantics: a full-warp shuffle
    (clamp/segment operand 0x1f, or 0 for .up) becomes a full-wave one over 64 lanes, as the
    translator's __shfl_*_sync do; a sub-warp segment ((32 - w) << 8) keeps its width w. The
    member mask is dropped (CDNA has no independent thread scheduling; HIP's unmasked forms act
    on the active lanes). vote.ballot -> __ballot (64-bit: a 32-bit destination keeps lanes
    0-31 only), vote.any/all -> __any/__all, vote.uni -> __all(p) || !__any(p), activemask ->
    __activemask(). The usual `setp.ne p, %1, 0; vote...; selp %0, 1, 0, q` wrapping is
    folded into the expression.

Before:
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(y) : "f"(x), "r"(m));
After:
    y = __shfl_xor(x, m);

Fix safety: safe for the encodings above; other clamp values, predicate destinations (d|p)
    and run-time clamp operands stay PTX001 hazards.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX005", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def shuffle_vote(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX005")
