"""HIP011: CUDA version macros in `#if` / `#elif` conditions.

Why: `CUDART_VERSION` (cuda_runtime_api.h) and `CUDA_VERSION` (cuda.h) are defined by the CUDA
toolkit's headers only; HIP defines neither and HIPIFY maps neither. In the port an undefined
identifier in a preprocessor condition reads as 0, so `#if CUDART_VERSION >= 2020` silently
switches to the `#else` branch the original never compiled: a fallback that prints "CUDART version
0.0 does not support ..." and exits, code written for CUDA 2, or code that does not compile at all
(cuda-samples' simpleZeroCopy and threadFenceReduction). The macros are read as CUDA 12.0 (12000),
the oldest release whose runtime API porter's translation tables (HIPIFY 6.3) cover whole, so the
port compiles the branches a CUDA 12 build of the original compiles. Uses outside conditions
(`printf("%d", CUDART_VERSION)`) and `defined(...)` tests are left for HIP005 and the reader.

Before:
    #if CUDART_VERSION >= 2020
      cudaSetDeviceFlags(cudaDeviceMapHost);
    #endif
After:
    #if 12000 /* CUDART_VERSION: CUDA 12.0 */ >= 2020
      cudaSetDeviceFlags(cudaDeviceMapHost);
    #endif

Fix safety: safe for conditions about the versions porter's tables cover; a condition on a newer
release (`>= 12040`) takes the CUDA 12.0 branch, which uses only API the port maps. The comment
keeps the original name visible in the port.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

# CUDA 12.0 in the encoding of both macros: major * 1000 + minor * 10.
PORTED_CUDA_VERSION = 12000
VERSION_MACROS = ("CUDART_VERSION", "CUDA_VERSION")
_WANTED = re.compile(rb"#\s*(?:el)?if\b[^\n]*\bCUDA(?:RT)?_VERSION\b")


@rule(id="HIP011", lang="cuda", severity="warning", fix="safe",
      trigger=lambda data, ctx: bool(_WANTED.search(data)))
def cuda_version_conditions(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if not _WANTED.search(unit.data):
        return
    stack = [unit.tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type not in ("preproc_if", "preproc_elif"):
            continue
        condition = node.child_by_field_name("condition")
        if condition is None:
            continue
        for ident in _identifiers(condition):
            name = unit.text(ident)
            if name not in VERSION_MACROS:
                continue
            new = f"{PORTED_CUDA_VERSION} /* {name}: CUDA 12.0 */"
            yield Hit(ident.start_byte, ident.end_byte,
                      f"{name} is defined by CUDA's headers only: in the port it reads as 0 and the "
                      f"condition takes the branch the original never compiled; read as CUDA 12.0",
                      (Edit(start=ident.start_byte, end=ident.end_byte, text=new),))


def _identifiers(node) -> Iterator:
    """Identifiers of a condition, not those under `defined(...)`."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "preproc_defined":
            continue
        if n.type == "identifier":
            yield n
        stack.extend(reversed(n.children))
