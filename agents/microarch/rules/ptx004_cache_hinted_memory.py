"""PTX004: inline PTX global loads and stores with cache operators (ld.global.nc/.cs/.cg, st.global.cs).

Why: `ld.global.nc.f32 %0, [%1];` is PTX, which does not assemble for AMDGCN. The cache
    operator is a hint whose value semantics are those of a plain access, so each form has a C++
    counterpart: .nc -> __ldg (HIP; a plain load on CDNA, where there is no separate read-only
    path), .cs/.lu -> __ldcs/__ldlu and st .cs -> __stcs (nontemporal accesses, the `nt` bit on
    gfx950, from porter's SHIM001 piece), .cg/.ca/.cv and st .cg/.wt/.wb -> the matching
    __ldcg/__ldca/__ldcv/__stcg/__stwt or a plain access. Eviction-priority and prefetch-size
    qualifiers (L1::no_allocate, L2::128B) are dropped. Vector forms (.v2/.v4) become one
    __ldg of float4/uint4/... into a temporary. A "memory" clobber is kept as a compiler barrier
    (__atomic_signal_fence, no instruction).

Before:
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
After:
    v = __ldg(reinterpret_cast<const float*>(p));

Fix safety: safe; only [%n] addresses are rewritten, with a cast to the element type the PTX
    names, so an integer address operand works as before.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile


@rule(id="PTX004", lang="cuda", severity="error", fix="safe",
      trigger=any_of(["asm"]))
def cache_hinted_memory(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from ptx_catalog.family_hits(unit, "PTX004")
