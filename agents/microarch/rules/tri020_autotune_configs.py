"""TRI020: @triton.autotune configs chosen for NVIDIA, re-derived for gfx950.

Why: a config list tuned on an H100 means something else on an MI350X. num_warps counts 64-lane
wavefronts on AMD, so num_warps=8 is 512 threads instead of 256; num_stages=4 or 5 asks AMD's
stream pipeliner for 3-4 LDS buffers of the A and B tiles (AMD uses 2 for a GEMM, 1 for fused
attention); and the AMD-only knobs (waves_per_eu, matrix_instr_nonkdim, kpack) are absent.
Each `triton.Config` of an autotuned kernel is rewritten by porter/perfmodel/triton_configs.py.
A GEMM-like kernel whose config shows its tiles (BLOCK_M/N/K, GROUP_M) keeps them and gets the
perfmodel's pick for them on gfx950: num_warps 4/8, num_stages 1-3, waves_per_eu 0/2 and
matrix_instr_nonkdim 16/32 (kpack=1) with the least predicted time over a few representative
GEMM shapes (`model_knobs`), for the operand layout read from the kernel's first tl.dot (or
assumed row-major, as Triton's tutorial, where both strides are arguments). Otherwise AMD's defaults: num_warps halved (same threads per
program; at least 4 waves for a GEMM), num_stages 2 for a GEMM (1 if the two tiles overflow
160 KiB of LDS), 1 for attention (two tl.dot), at most 2 otherwise. A GEMM-like kernel gets
waves_per_eu, matrix_instr_nonkdim and kpack in the config's dict, other kernels
waves_per_eu=0 (no hint; its presence marks the config as AMD's), through
`**_porter_amd_knobs(...)` (SHIM030 defines it) so that NVIDIA's backend, which rejects
unknown options, still runs the port. The finding says where the knobs came from ("perfmodel
pick for gfx950 (T us predicted at 4096x4096x4096; layout nn, assumed: ...)" or "AMD defaults (...)").
Configs that become identical are dropped.

Before:
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64}, num_warps=8, num_stages=4)
After:
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64,
                   **_porter_amd_knobs(waves_per_eu=0, matrix_instr_nonkdim=16, kpack=1)}, num_warps=4, num_stages=3)

Fix safety: safe: launch knobs change speed and occupancy, never the values computed (the
tile sizes, which can, are kept). A config that already has an AMD knob is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.perfmodel import triton_configs as tc
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit


def _tunes_a_kernel(unit: PythonFile) -> bool:
    if b"autotune" not in unit.data or b"Config" not in unit.data:
        return False
    facts = unit.facts
    return facts is None or ("triton.Config" in facts.calls and bool(facts.autotuned))


@rule(id="TRI020", lang="triton", severity="warning", fix="safe", when=_tunes_a_kernel)
def autotune_configs(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    tuned = _autotuned(unit.module, names)
    if not tuned:
        return
    parents = src.parents(unit.module)
    seen: dict[int, set[str]] = {}  # per enclosing list: the new configs so far
    for call in src.find(unit.module, cst.Call):
        if src.call_name(call, names) != "triton.Config":
            continue
        kernel = _owner(call, tuned, parents)
        if kernel is None:
            continue
        layout, read = src.dot_layout(kernel, names)
        rewrite = config_rewrite(unit, call, tc.KernelShape(dots=src.count_dots(kernel, names), layout=layout,
                                                            layout_read=read))
        if rewrite is None:
            continue
        text, message = rewrite
        s, e = unit.span(call)
        holder = parents.get(parents.get(call))
        if isinstance(holder, cst.List):
            key = " ".join(text.split())
            if key in seen.setdefault(id(holder), set()):
                yield Hit(s, e, f"same config as an earlier one once derived for gfx950: dropped ({message})",
                          edits=(_drop(unit, holder, parents[call]),))
                continue
            seen[id(holder)].add(key)
        yield Hit(s, e, message, edits=(Edit(s, e, text),))


def config_rewrite(unit: PythonFile, call: cst.Call, shape: tc.KernelShape) -> tuple[str, str] | None:
    """The new text of one triton.Config and the finding's message; None if it is AMD's already."""
    kwargs = src.arg(call, "kwargs", 0)
    meta = kwargs.value if kwargs is not None and isinstance(kwargs.value, cst.Dict) else None
    keys = {_key(el): el for el in meta.elements if isinstance(el, cst.DictElement)} if meta else {}
    knobs = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if any(k in keys or k in knobs for k in tc.AMD_GEMM_EXTRAS) or (meta is not None and _has_helper(meta)):
        return None
    if meta is None:
        return None  # kwargs built elsewhere: the tiles and where to put the knobs are unknown
    tiles = {d: next((src.int_value(keys[k].value) for k in ks if k in keys), None) for d, ks in tc.TILE_KEYS.items()}
    shape = tc.KernelShape(shape.dots, tiles["m"], tiles["n"], tiles["k"], tiles["group"], shape.layout, shape.layout_read)
    nv_warps = src.int_value(knobs["num_warps"].value) if "num_warps" in knobs else None
    nv_stages = src.int_value(knobs["num_stages"].value) if "num_stages" in knobs else None
    if ("num_warps" in knobs and nv_warps is None) or ("num_stages" in knobs and nv_stages is None):
        return None  # computed knobs: nothing to derive from
    amd = tc.derive(nv_warps, nv_stages, shape)

    edits: list[tuple[int, int, str]] = []
    extras = amd.extras() if shape.gemm else {"waves_per_eu": 0}
    last = meta.elements[-1] if meta.elements else None
    add = tc.amd_knobs_splat(extras)
    if last is not None:
        at = unit.span(last)[1]
        edits.append((at, at, f", {add}"))
    else:
        at = unit.span(meta)[0] + 1
        edits.append((at, at, add))
    notes = []
    for knob, old, new in (("num_warps", nv_warps, amd.num_warps), ("num_stages", nv_stages, amd.num_stages)):
        if knob in knobs and new is not None:
            if new != old:
                s, e = unit.span(knobs[knob].value)
                edits.append((s, e, str(new)))
            notes.append(f"{knob} {old}->{new}")
        elif new is not None and (knob == "num_stages" or new != tc.CONFIG_DEFAULTS[knob]):
            at = unit.span(call.args[-1].value)[1]
            edits.append((at, at, f", {knob}={new}"))
            notes.append(f"{knob} (default {tc.CONFIG_DEFAULTS[knob]})->{new}")
    text = _splice(unit, call, edits)
    lds = f"; LDS {amd.lds_bytes / 1024:.0f} of {tc.LDS_BYTES // 1024} KiB" if amd.lds_bytes else ""
    kind = "fused attention" if shape.attention else "GEMM" if shape.gemm else "no tl.dot"
    message = f"{kind}: {', '.join(notes + [f'{k}={v}' for k, v in extras.items()])}{lds}: {amd.origin}"
    return text, message


def _splice(unit: PythonFile, call: cst.CSTNode, edits: list[tuple[int, int, str]]) -> str:
    cs, ce = unit.span(call)
    data = unit.data
    out, pos = [], cs
    for s, e, t in sorted(edits):
        out += [data[pos:s].decode(), t]
        pos = e
    out.append(data[pos:ce].decode())
    return "".join(out)


def _has_helper(meta: cst.Dict) -> bool:
    """The config already passes AMD knobs through the helper: it was derived before."""
    return any(isinstance(el, cst.StarredDictElement) and isinstance(el.value, cst.Call)
               and isinstance(el.value.func, cst.Name) and el.value.func.value == tc.AMD_KNOBS_HELPER
               for el in meta.elements)


def _key(el: cst.DictElement) -> str | None:
    return el.key.evaluated_value if isinstance(el.key, cst.SimpleString) else None  # type: ignore[return-value]



def _autotuned(module: cst.Module, names: dict[str, str]) -> list[cst.FunctionDef]:
    return [fn for fn in src.kernels(module, names).values()
            if any(src.decorator_name(d, names) == "triton.autotune" for d in fn.decorators)]


def _owner(call: cst.Call, tuned: list[cst.FunctionDef], parents) -> cst.FunctionDef | None:
    """The autotuned kernel a config belongs to: the one whose decorator holds it, or the file's only one."""
    node: cst.CSTNode | None = call
    while node is not None:
        node = parents.get(node)
        if isinstance(node, cst.FunctionDef) and node in tuned:
            return node
    return tuned[0] if len(tuned) == 1 else None


def _drop(unit: PythonFile, holder: cst.List, element: cst.CSTNode) -> Edit:
    """Delete one element of a list literal with its separator."""
    items = list(holder.elements)
    i = next(j for j, el in enumerate(items) if el is element)
    if i + 1 < len(items):
        return Edit(unit.span(element)[0], unit.span(items[i + 1])[0], "")
    return Edit(unit.span(items[i - 1].value)[1], unit.span(element.value)[1], "")  # type: ignore[union-attr]
