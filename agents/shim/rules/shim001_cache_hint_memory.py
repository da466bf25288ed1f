"""SHIM001: cache-hinted loads and stores that HIP does not declare.

Why: CUDA's __ldcs/__ldcg/__ldca/__ldlu/__ldcv and __stcs/__stcg/__stwb/__stwt (loads and
stores with a PTX cache operator) have no HIP declaration, so a hipified kernel that streams
data with them stops compiling. porter's compat header defines them for CDNA: the streaming
forms as nontemporal accesses (the `nt` bit of global_load/global_store), the rest as plain
accesses with the same value semantics.

Before:
    out[i] = __ldcs(&in[i]) * 2.0f;
After:
    #include "porter_compat.h"   // added by the shim agent, which writes the header
    out[i] = __ldcs(&in[i]) * 2.0f;

Fix safety: safe; the header only adds declarations the unit was missing. The shim agent
writes the header and the include; the rule itself reports each use.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

NAMES = frozenset({"__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv", "__stcs", "__stcg", "__stwb", "__stwt"})
HEADER = "compat/cache_hint_memory.h"


@rule(id="SHIM001", lang="cuda", severity="info",
      trigger=any_of(NAMES))
def cache_hint_memory(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for start, end, name in unit.identifiers():
        if name in NAMES:
            yield Hit(start, end, f"{name} has no HIP declaration: porter_compat.h defines it for CDNA")
