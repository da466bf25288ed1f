"""HIP002: CUDA headers replaced by their HIP and ROCm library headers.

Why: the CUDA toolkit's headers are not on a ROCm include path; `<cuda_runtime.h>` must become
`<hip/hip_runtime.h>`, `<cublas_v2.h>` `<hipblas/hipblas.h>`, `<cub/cub.cuh>` `<hipcub/hipcub.hpp>`,
`<nccl.h>` `<rccl/rccl.h>`. The spelling follows the source, as HIPIFY writes it: `"cuda_fp16.h"`
becomes `"hip/hip_fp16.h"` (a quoted include falls back to the system path) and `<...>` stays
`<...>`. A header with no ROCm counterpart that nothing needs (device_launch_parameters.h) is
removed, and so is a second include of a header an earlier one already became (cuda.h and
cuda_runtime.h are both <hip/hip_runtime.h>), within one #if branch. A project's own header
("reduce.cuh") keeps its name. ATen/c10 CUDA headers are HIP007's
(PyTorch extensions only); cudnn.h is HIP006's unless the run ports cuDNN to MIOpen (`--dnn miopen`).

Before:
    #include <cuda_runtime.h>
    #include "cuda_fp16.h"
    #include "device_launch_parameters.h"
After:
    #include <hip/hip_runtime.h>
    #include "hip/hip_fp16.h"

Fix safety: safe for mapped headers. A CUDA toolkit header with no known HIP header
(<cuda/pipeline>) is reported as a warning and left in place; <mma.h> is left to the
microarch agent, whose MFMA001 replaces the wmma code it declares (an info finding here).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.tables import Choices, index
from porter.agents.translator.tokens import classify
from porter.includes import include_paths
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

# CUDA toolkit header spellings: cuda.h, cuda_*.h, cuda/* and nv/* (libcu++, CUDA 12+'s CCCL),
# cudaEGL.h and the other cudaXxx.h interop headers, the cu* libraries, nv* tools (nvtx3/, nvperf,
# nvvm), mma.h, sm_NN_*intrinsics.h, crt/, cooperative_groups/* (HIP has only
# hip/hip_cooperative_groups.h), the generated *_meta.h and CUPTI's Openmp/ and Openacc/.
CUDA_HEADER = re.compile(r"^(?:cuda[_/.]|cuda[A-Z]\w*\.h|cudart_|nv/|Open(?:mp|acc)/|generated_\w+_meta\.h"
                         r"|cu(?:blas|rand|fft|sparse|solver|tensor|file|pti|Complex)\w*\.h"
                         r"|nv(?:rtc|ToolsExt|ml|shmem|tx|perf_|vm\.h|_decode)|mma\.h|sm_\d+_|crt/|cooperative_groups/"
                         r"|fatbinary_section\.h|host_config\.h)")


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    """Whether some `#include` (code or not) names a header a table maps, or a CUDA header spelling."""
    if b"include" not in data:
        return False
    ix = index(Choices.of(ctx.options))
    for raw in include_paths(data):
        path = raw.decode("utf-8", "replace").strip()
        if (path == "mma.h" or CUDA_HEADER.match(path) or ix.header(path) is not None
                or ix.header(path, extension=True) is not None):
            return True
    return False


@rule(id="HIP002", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def headers(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    seen: set[tuple[str, int | None]] = set()  # (header, enclosing #if block) already included
    for inc in classify(unit, ctx).includes:
        mapping = inc.mapping
        old = f"<{inc.path}>" if inc.angled else f'"{inc.path}"'
        renamed = mapping is not None and mapping.family != "pytorch" and mapping.renames
        target = (mapping.hip if renamed else inc.path, _block(unit, inc.start))
        if renamed and (not mapping.hip or target in seen):
            start, end = _line(unit.data, inc.start, inc.end)
            why = "no ROCm counterpart is needed" if not mapping.hip else f"<{mapping.hip}> is already included above"
            yield Hit(inc.start, inc.end, f"{old}: {why}; removed", edits=(Edit(start=start, end=end, text=""),))
        elif renamed:
            new = f"<{mapping.hip}>" if inc.angled else f'"{mapping.hip}"'
            yield Hit(inc.start, inc.end, f"{old} -> {new}", edits=(Edit(start=inc.start, end=inc.end, text=new),))
        elif mapping is None and inc.path == "mma.h":
            yield Hit(inc.start, inc.end, "<mma.h> (nvcuda::wmma) has no HIP header: the microarch agent's MFMA001 "
                                          "rewrites the wmma code to gfx950 MFMA and drops the include")
        elif mapping is None and inc.angled and CUDA_HEADER.match(inc.path) and not inc.path.startswith("cudnn"):
            yield Hit(inc.start, inc.end, f"<{inc.path}>: no HIP header is known for this CUDA toolkit header",
                      severity=Severity.warning)
        seen.add(target)


_CONDITIONAL = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})


def _block(unit: SourceFile, offset: int) -> int | None:
    """The innermost #if/#ifdef/#else block holding `offset` (its start byte), None at file level.

    Two includes that map to one header are merged only inside one block: in different branches
    of an #if each is the only copy its branch has.
    """
    node = unit.tree.root_node.descendant_for_byte_range(offset, offset)
    while node is not None:
        if node.type in _CONDITIONAL:
            return node.start_byte
        node = node.parent
    return None


def _line(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The whole `#include` line around [start, end), with its newline."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    return line_start, len(data) if line_end < 0 else line_end + 1
