"""TRI021: num_warps / num_stages hard-coded at a kernel launch, re-derived for gfx950.

Why: `kernel[grid](..., num_warps=8, num_stages=4)` was sized for 32-lane warps and NVIDIA's
pipeliner: on AMD num_warps counts 64-lane wavefronts (8 means 512 threads) and num_stages is
the depth of the stream pipeliner's LDS buffers. The launch's knobs are re-derived as in TRI020
(porter/perfmodel/triton_configs.py), with the tile sizes read from the launch's own BLOCK_*
and GROUP_M keywords: when they are all there, a GEMM-like kernel gets the perfmodel's pick of
num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim and kpack for those tiles on gfx950,
else AMD's defaults (matrix_instr_nonkdim=16, kpack=1); others get waves_per_eu=0 (no hint; it
marks the launch as AMD's). The AMD-only knobs are passed as `**_porter_amd_knobs(...)`
(SHIM030) so the port still launches on NVIDIA. The finding says where the knobs came from.
An autotuned kernel's launch has no knobs of its own (TRI020 owns its configs).

Before:
    softmax_kernel[(n_rows,)](y, x, n_cols, BLOCK=1024, num_warps=8, num_stages=4)
After:
    softmax_kernel[(n_rows,)](y, x, n_cols, BLOCK=1024, num_warps=4, num_stages=2, **_porter_amd_knobs(waves_per_eu=0))

Fix safety: safe: launch knobs change speed, never the values computed. A knob computed at run
time (`num_warps=nw`) is reported, not rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.perfmodel import triton_configs as tc
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity


def _launches_with_knobs(unit: PythonFile) -> bool:
    data = unit.data
    if b"jit" not in data or (b"num_warps" not in data and b"num_stages" not in data):
        return False
    facts = unit.facts
    return facts is None or any(name in facts.untuned and knob in ("num_warps", "num_stages")
                                for name, knob in facts.launches)


@rule(id="TRI021", lang="triton", severity="warning", fix="safe", when=_launches_with_knobs)
def launch_knobs(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    kernels = src.kernels(unit.module, names)
    for call in src.find(unit.module, cst.Call):
        if not (isinstance(call.func, cst.Subscript) and isinstance(call.func.value, cst.Name)):
            continue
        kernel = kernels.get(call.func.value.value)
        if kernel is None or any(src.decorator_name(d, names) == "triton.autotune" for d in kernel.decorators):
            continue
        knobs = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if "num_warps" not in knobs and "num_stages" not in knobs:
            continue
        if any(k in knobs for k in tc.AMD_GEMM_EXTRAS) or any(
                a.star == "**" and isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name)
                and a.value.func.value == tc.AMD_KNOBS_HELPER for a in call.args):
            continue
        s, e = unit.span(call)
        nv = {k: src.int_value(knobs[k].value) for k in ("num_warps", "num_stages") if k in knobs}
        if None in nv.values():
            yield Hit(s, e, "launch knobs computed at run time: derive them for 64-lane wavefronts by hand",
                      severity=Severity.info)
            continue
        tiles = {d: next((src.int_value(knobs[k].value) for k in ks if k in knobs), None) for d, ks in tc.TILE_KEYS.items()}
        layout, read = src.dot_layout(kernel, names)
        shape = tc.KernelShape(src.count_dots(kernel, names), tiles["m"], tiles["n"], tiles["k"], tiles["group"],
                               layout, read)
        amd = tc.derive(nv.get("num_warps"), nv.get("num_stages"), shape)
        edits, notes = [], []
        for knob, new in (("num_warps", amd.num_warps), ("num_stages", amd.num_stages)):
            if knob in knobs and new is not None:
                notes.append(f"{knob} {nv[knob]}->{new}")
                if new != nv[knob]:
                    a, b = unit.span(knobs[knob].value)
                    edits.append(Edit(a, b, str(new)))
        extras = amd.extras() if shape.gemm else {"waves_per_eu": 0}
        added = ""
        if shape.gemm and "num_warps" not in knobs and amd.num_warps not in (None, tc.CONFIG_DEFAULTS["num_warps"]):
            added += f", num_warps={amd.num_warps}"
            notes.append(f"num_warps (default {tc.CONFIG_DEFAULTS['num_warps']})->{amd.num_warps}")
        if shape.gemm and "num_stages" not in knobs and amd.num_stages is not None:
            added += f", num_stages={amd.num_stages}"
            notes.append(f"num_stages (default 3)->{amd.num_stages}")
        at = unit.span(call.args[-1].value)[1]
        edits.append(Edit(at, at, f"{added}, {tc.amd_knobs_splat(extras)}"))
        kind = "fused attention" if shape.attention else "GEMM" if shape.gemm else "no tl.dot"
        message = f"{kind}: {', '.join(notes + [f'{k}={v}' for k, v in extras.items()])}: {amd.origin}"
        yield Hit(s, e, message, edits=tuple(edits))
