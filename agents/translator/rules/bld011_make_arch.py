"""BLD011: NVIDIA GPU architecture options in a Makefile.

Why: `-arch=sm_90`, `-arch sm_80`, `-gencode arch=compute_90,code=sm_90` and
`--generate-code=...` select NVIDIA SM targets; hipcc (clang) selects AMD targets with
`--offload-arch=` (clang "HIP support", ROCm 6.3 "HIP compiler options"). The first architecture
option of a line becomes gfx950 (MI350X); where a line lists several, the second becomes gfx942
(MI300X) and the others go.

Before:
    NVCCFLAGS := -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
After:
    NVCCFLAGS := -O3 --offload-arch=gfx950 --offload-arch=gfx942

Fix safety: safe: SM names mean nothing to clang. Architecture lists built by make functions
(`$(foreach sm,$(SMS),...)`) are left alone; set them by hand.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import make_word_hits, nvcc_arch_changes
from porter.rules import Hit, RuleContext, TextFile, rule


@rule(id="BLD011", lang="makefile", severity="info", fix="safe")
def make_arch(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from make_word_hits(unit.data, lambda line: nvcc_arch_changes([w.text for w in line.words],
                                                                         ctx.options.arch))
