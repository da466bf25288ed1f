"""HIP013: CUDART_CB / CUDA_CB calling-convention macros on callbacks.

Why: CUDA marks host callbacks (cudaStreamAddCallback, cudaLaunchHostFunc, cuStreamAddCallback)
with `CUDART_CB` or `CUDA_CB`, macros of cuda_runtime_api.h / cuda.h that expand to `__stdcall` on
Windows and to nothing elsewhere. HIP declares its callback types (hipStreamCallback_t,
hipHostFn_t) without a calling convention and defines neither macro, and HIPIFY maps neither, so
a port that keeps `void CUDART_CB myCallback(...)` stops with "variable has incomplete type
'void'" (cuda-samples' simpleCallback). The macro is removed with the blank after it.

Before:
    void CUDART_CB myStreamCallback(cudaStream_t stream, cudaError_t status, void *data);
After:
    void myStreamCallback(cudaStream_t stream, cudaError_t status, void *data);

Fix safety: safe: the macro is empty on every platform HIP runs on. A project that defines a
macro of the same name (a name the tree declares) keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

MACROS = ("CUDART_CB", "CUDA_CB")
_USE = re.compile(rb"\b(CUDART_CB|CUDA_CB)\b[ \t]*")


@rule(id="HIP013", lang="cuda", severity="info", fix="safe", trigger=any_of(["_CB"]))
def callback_convention(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in _USE.finditer(unit.data):
        name = m.group(1).decode()
        if name in ctx.project or not unit.is_code(m.start()):
            continue
        yield Hit(m.start(1), m.end(1), f"{name} is CUDA's callback calling convention (empty outside Windows); "
                  "HIP's callback types have none", (Edit(start=m.start(), end=m.end(), text=""),))
