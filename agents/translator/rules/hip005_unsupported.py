"""HIP005: a CUDA name with no known HIP equivalent.

Why: a CUDA runtime, driver or toolkit name that no table maps (cuTensorMapEncodeTiled,
cudaStreamAttrValue, a CUDA 13 addition) or that the tables mark unsupported would pass through
a hipify untouched and fail to compile for gfx950, or worse, compile against a project shim with
other semantics. It is reported, never passed through silently. "CUDA-looking" means the
toolkit's spellings: cuda[A-Z]*, cu[A-Z]*, CU_*, CUDA_*, __nv_*, nv[A-Z]*, nvshmem*. A name the
project defines anywhere in its tree (a `cudaCheck` macro in common.h, a `cublasCheck` function:
the run's symbol table, porter.symbols) is the project's and is never reported; it keeps its
spelling in its definition and at every use. ALL_CAPS CUDA_* names no file of the tree defines
are warnings, as they are usually macros from a header outside it.

Before:
    cudaFooBar(stream);
After:
    cudaFooBar(stream);  // reported: needs a shim or a rewrite

Fix safety: none: there is nothing to rename to; the shim agent or the model takes it.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.tokens import MACRO_LIKE, classify, mentions_names
from porter.rules import Hit, RuleContext, rule
from porter.state import Severity
from porter.syntax import SourceFile


@rule(id="HIP005", lang="cuda", severity="error", fix="none", trigger=mentions_names)
def unsupported(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for token in classify(unit, ctx).tokens:
        if token.kind == "unsupported":
            yield Hit(token.start, token.end, f"{token.name}: unsupported in HIP; no HIP equivalent is known")
        elif token.kind == "unknown":
            macro = MACRO_LIKE.match(token.name) is not None
            yield Hit(token.start, token.end,
                      f"{token.name}: CUDA name with no HIP equivalent known"
                      + (" (or a project macro defined elsewhere)" if macro else ""),
                      severity=Severity.warning if macro else None)
