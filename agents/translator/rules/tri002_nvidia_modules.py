"""TRI002: NVIDIA-only Triton and PyTorch modules.

Why: `triton.language.extra.cuda` is the CUDA backend's extension module; on ROCm it does not
lower. Its smid, num_threads and num_warps have the same functions in
`triton.language.extra.hip` (num_threads and num_warps then count 64-lane wavefronts), so those
are renamed. globaltimer (nanoseconds; hip's memrealtime ticks at 100 MHz), gdc_wait and
gdc_launch_dependents (Hopper programmatic dependent launch) and the custom fp8 converters have no
AMD meaning and are errors. `torch.backends.cuda.matmul.allow_tf32` / `torch.backends.cudnn.allow_tf32`
ask for TF32, which gfx950 does not have: FP32 matmuls stay FP32 on ROCm (slower than the TF32 the
original measured, and more accurate: compare against FP32 tolerances).

Before:
    sm = tl.extra.cuda.smid()
    tl.extra.cuda.gdc_wait()
After:
    sm = tl.extra.hip.smid()
    tl.extra.cuda.gdc_wait()  # reported: no AMD equivalent

Fix safety: safe for the three renamed functions (same signature and meaning); the rest are
reported.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity

EXTRA_CUDA = "triton.language.extra.cuda"
SAME_ON_HIP = frozenset(("smid", "num_threads", "num_warps"))
TF32 = ("torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32")


def _names_cuda_extras(unit: PythonFile) -> bool:
    data = unit.data
    if not ((b"extra" in data and b"cuda" in data) or b"allow_tf32" in data):
        return False
    facts = unit.facts
    return facts is None or any(d.startswith(EXTRA_CUDA) or d in TF32 for d in facts.dotted)


@rule(id="TRI002", lang="triton", severity="error", fix="safe", when=_names_cuda_extras)
def nvidia_modules(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    for node in src.find(unit.module, cst.Attribute):
        full = src.resolve(node, names) or ""
        if full in TF32:
            s, e = unit.span(node)
            yield Hit(s, e, f"{full}: gfx950 has no TF32; FP32 matmuls stay FP32 on ROCm", severity=Severity.info)
            continue
        if not full.startswith(EXTRA_CUDA + ".") or full.startswith(EXTRA_CUDA + ".libdevice"):
            continue  # libdevice is TRI001's
        fn = full[len(EXTRA_CUDA) + 1:].split(".")[-1]
        inner = node.value
        s, e = unit.span(node)
        if fn in SAME_ON_HIP and isinstance(inner, cst.Attribute) and inner.attr.value == "cuda":
            a, b = unit.span(inner.attr)
            yield Hit(s, e, f"{full} -> triton.language.extra.hip.{fn}", edits=(Edit(a, b, "hip"),))
        elif fn not in SAME_ON_HIP:
            yield Hit(s, e, f"{full} exists only on NVIDIA: no AMD equivalent", severity=Severity.error)
    for node in src.find(unit.module, cst.ImportFrom):
        mod = src.dotted(node.module) if node.module is not None else None
        if mod is None or not mod.startswith(EXTRA_CUDA) or isinstance(node.names, cst.ImportStar):
            continue
        imported = [src.dotted(a.name) for a in node.names]
        if mod == EXTRA_CUDA and imported == ["libdevice"] or mod.startswith(EXTRA_CUDA + ".libdevice"):
            continue
        s, e = unit.span(node)
        if all(n in SAME_ON_HIP for n in imported) and mod in (EXTRA_CUDA, EXTRA_CUDA + ".utils"):
            a, b = unit.span(node.module)
            new = "triton.language.extra.hip" + mod[len(EXTRA_CUDA):]
            yield Hit(s, e, f"{mod} -> {new}", edits=(Edit(a, b, new),))
        else:
            yield Hit(s, e, f"from {mod} import {', '.join(map(str, imported))}: NVIDIA-only",
                      severity=Severity.error)
