"""BLD012: nvcc-only options in a Makefile.

Why: hipcc passes options to clang, which rejects nvcc's own options. Each has a clang spelling
or no use on AMD (nvcc manual, CUDA 12 "NVCC Command Options"; clang's HIP options, ROCm 6.3):
`-Xcompiler -Wall` -> `-Wall` (clang compiles host code itself), `--use_fast_math` ->
`-ffast-math`, `-lineinfo` -> `-gline-tables-only`, `-rdc=true` -> `-fgpu-rdc`,
`--ptxas-options=-v` -> `-Rpass-analysis=kernel-resource-usage`; `--expt-relaxed-constexpr` and
`--expt-extended-lambda` are clang's default and go, as does `-ccbin` (no separate host compiler).
`-Xptxas` options other than -v are dropped with a warning: there is no ptxas.

Before:
    NVCCFLAGS := -O3 -Xcompiler -Wall --use_fast_math -lineinfo --expt-relaxed-constexpr
After:
    NVCCFLAGS := -O3 -Wall -ffast-math -gline-tables-only

Fix safety: safe for the options in porter's nvcc table. Options with no clang equivalent
(`-maxrregcount`, `-Xnvlink`, `-dlink`) are reported, not edited.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import make_word_hits, nvcc_flag_changes
from porter.rules import Hit, RuleContext, TextFile, rule


@rule(id="BLD012", lang="makefile", severity="info", fix="safe")
def make_nvcc_flags(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from make_word_hits(unit.data, lambda line: nvcc_flag_changes([w.text for w in line.words]))
