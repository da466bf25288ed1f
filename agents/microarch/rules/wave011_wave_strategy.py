"""WAVE011: one wave strategy per kernel; a kernel that keeps 32-lane groups is rewritten to keep them.

Why: a kernel's wave-size assumptions hang together: lane and warp ids, shuffle widths and
    offsets, per-warp slot counts, `WS = 32` constants, masks, launch geometry, and the host code
    that fills its inputs and checks its outputs per 32 threads (`i % 32`, a host `warp_size = 32`,
    a launch of 32-thread blocks; for a kernel in a header, in the files including it). Converting some of
    them to the 64-lane CDNA wavefront and not the others gives wrong numbers (lane ids 64-based
    while a shuffle tree still starts at 16, or `& 31` rewritten in a kernel that has no cross-lane
    operation at all). porter's wave model (agents/microarch/wave_model.py) collects them per
    kernel, with the helpers and constants it reaches, and decides once:
    keep32 (32-lane logical groups on the 64-lane wave; the default whenever converting cannot be
    shown whole), convert64 (every quantity has a whole-wave rewrite; WAVE001-WAVE010 make them
    together), or ask (neither can be shown; the blocking quantities are named).
    This rule states each kernel's decision and makes the keep32 rewrite: shuffles take width 32,
    ballots and votes read the caller's half of the 64-bit ballot, `warpSize` reads 32, and HIP's
    `__lane_id()` is taken modulo 32. The whole-wave rules leave keep32 kernels alone.
    A kernel parameter used as a shuffle width, a shuffle loop bound or a lane-math divisor is
    as wide as the launches make it: where the host passes 32 (`scan<<<g, b>>>(d, 32)`), that
    argument is a quantity of the kernel. convert64 rewrites it with the kernel, to the device's
    warp size read at run time (HIP has no host `warpSize`; hipDeviceAttributeWarpSize is what
    the HIP porting guide gives, and it is also right on a wave32 device); keep32 leaves it at 32.

Before:
    #define WS 32
    __global__ void k(float* out) {
      int lane = threadIdx.x % WS;
      float v = out[threadIdx.x];
      v += __shfl_down_sync(0xffffffff, v, 1, 32);
      unsigned votes = __ballot_sync(0xffffffff, v > 0);
      if (lane == 0) out[threadIdx.x / WS] = v + __popc(votes);
    }
After:
    #define WS 32
    __global__ void k(float* out) {
      int lane = threadIdx.x % WS;
      float v = out[threadIdx.x];
      v += __shfl_down(v, 1, 32);
      unsigned votes = ((unsigned)(__ballot(v > 0) >> (__lane_id() & 32)));
      if (lane == 0) out[threadIdx.x / WS] = v + __popc(votes);
    }

Fix safety: safe for keep32 kernels: on a 64-lane wave every 32-lane group computes what one
    NVIDIA warp did. A shuffle with width 32 stays inside the caller's half (HIP's __shfl* take a
    width, as CUDA's do); `(unsigned)(__ballot(p) >> (__lane_id() & 32))` is bit i for lane i of the
    caller's half, which is what the 32-bit ballot held; __any/__all become that half's ballot
    tested against zero; a mask of a shuffle is dropped (a wavefront runs in lockstep) and a
    partial vote mask is applied to the half ballot. Not rewritten (the kernel is asked about
    instead): __reduce_*_sync and __match_all_sync, which have no half-wave form.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from porter import cuda_patterns as patterns
from porter.agents.microarch import triggers, wave_model
from porter.agents.microarch.wave_sites import every_lane, is_full32
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

HALF = wave_model.HALF
_CALLS = "(call_expression function: (identifier) @fn) @call"


@rule(id="WAVE011", lang="cuda", severity="info", fix="safe",
      trigger=triggers.wave_model_words)
def wave_strategy(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    model = wave_model.analyse(unit, ctx)
    for k in model.kernels:
        if not k.quantities:
            continue
        fn = next(f for f in wave_model.functions(unit) if f.name == k.kernel and f.kernel != k.helper)
        start, end = fn.view.span(fn.node.child_by_field_name("declarator") or fn.node)
        said = {"keep32": "keeps 32-lane logical groups on the 64-lane wave",
                "convert64": "converts to the whole 64-lane wave",
                "ask": "needs a person: neither keeping 32-lane groups nor converting to 64 lanes can be shown"}[k.decision]
        covered = k.summary()
        detail = "\n".join(f"{'blocks: ' if q in k.blocking else ''}{q.path}:{unit.line_col(q.start)[0] if q.path == unit.path else '?'} "
                           f"{q.shown}{' (' + q.note + ')' if q.note else ''}" for q in k.quantities)
        yield Hit(start, end, f"{'helper' if k.helper else 'kernel'} `{k.kernel}` {said}: {k.reason}; quantities covered: {covered}",
                  severity=Severity.error if k.decision == "ask" else Severity.info, detail=detail)
    yield from _launch_arguments(unit, ctx, model)
    for f in wave_model.functions(unit):
        comp = model.component_at(f.view.span(f.node)[0])
        if comp is None or model.decisions.get(comp) != "keep32":
            continue
        if model.cross.get(comp):
            yield from _keep_groups(unit, f)
        elif {q.form for q in model.components[comp]} >= {"32", "64"}:
            yield from _warp_size_32(f)  # 32-based math beside warpSize: read warpSize as 32 too


def _keep_groups(unit: SourceFile, f: wave_model.Function) -> Iterator[Hit]:
    src, view = f.view.src, f.view
    dropped: set[int] = set()  # __activemask() calls that are the dropped mask of a call around them
    for m in src.matches(_CALLS, f.node):
        callee, call = src.text(m["fn"][0]), m["call"][0]
        a = patterns.args(call)
        if callee in patterns.MASKED_SYNC and a:
            for inner in src.captures(_CALLS, a[0]):
                if inner.type == "call_expression":
                    dropped.add(inner.start_byte)
    yield from _warp_size_32(f)
    for m in src.matches(_CALLS, f.node):
        callee, call = src.text(m["fn"][0]), m["call"][0]
        a = patterns.args(call)
        if callee in wave_model.SHUFFLE_ARGS:
            yield from _shuffle(unit, view, callee, call, a)
        elif callee in ("__ballot_sync", "__ballot", "__any_sync", "__any", "__all_sync", "__all", "__match_any_sync"):
            yield from _vote(unit, view, callee, call, a)
        elif callee == "__activemask" and call.start_byte not in dropped and not wave_model._is_half(src, call):
            yield Hit(*view.span(call), "__activemask() kept to the caller's 32-lane group: the half of the 64-bit mask",
                      edits=(Edit(view.base + call.start_byte, view.base + call.start_byte, "((unsigned)("),
                             Edit(view.base + call.end_byte, view.base + call.end_byte, f" >> {HALF}))")))
        elif callee == "__lane_id":
            parent = call.parent
            if parent is not None and parent.type == "binary_expression" and \
                    src.text(parent.child_by_field_name("operator")) == "&" and \
                    src.text(parent.child_by_field_name("right")).strip() in ("31", "32"):
                continue
            yield Hit(*view.span(call), "__lane_id() is 0-63 on a 64-lane wave; the lane within the 32-lane group is "
                      "__lane_id() & 31", edits=(Edit(view.base + call.start_byte, view.base + call.start_byte, "("),
                                                  Edit(view.base + call.end_byte, view.base + call.end_byte, " & 31)")))


def _launch_arguments(unit: SourceFile, ctx: RuleContext, model: wave_model.UnitWaves) -> Iterator[Hit]:
    """convert64 kernels (of this file or a header it includes) launched here with 32 for a wave
    parameter (a shuffle width, a shuffle loop bound, a lane-math divisor): the argument becomes the
    device's warp size, read at run time (wave_model.HOST_WAVE_SIZE), in the same patch as the kernel."""
    kernels: dict[str, wave_model.Function] = {}
    for source in [*wave_model._headers(unit, ctx), unit]:
        decided = {k.kernel: k.decision for k in (model if source is unit else wave_model.analyse(source, ctx)).kernels
                   if not k.helper}
        for f in wave_model.functions(source):
            if f.kernel and decided.get(f.name) == "convert64":
                kernels[f.name] = f
    for name, f in sorted(kernels.items()):
        for q in wave_model.parameter_quantities(f, [unit]):
            if q.kind == "launch-argument" and q.form == "32" and q.path == unit.path:
                yield Hit(q.start, q.end, f"a launch argument of `{name}`, which converts to the whole 64-lane wave: {q.note}; "
                          "the launch passes the device's warp size instead (hipDeviceAttributeWarpSize; HIP has no host warpSize)",
                          edits=(Edit(q.start, q.end, wave_model.HOST_WAVE_SIZE),))


def _warp_size_32(f: wave_model.Function) -> Iterator[Hit]:
    src, view = f.view.src, f.view
    for ident in src.captures("(identifier) @i", f.node):
        if src.text(ident) == "warpSize" and (ident.parent is None or ident.parent.type != "field_expression"):
            yield Hit(*view.span(ident), "warpSize is 64 on CDNA; this kernel keeps 32-lane groups, so its warp is 32",
                      edits=(Edit(*view.span(ident), "32"),))


def _mask_every(unit: SourceFile, view: patterns.View, mask: Node) -> bool:
    """The mask names the whole 32-lane group (or the whole wave): it can be left out."""
    mask = patterns.unwrap(mask)
    return (is_full32(view.src, mask) or every_lane(unit, view, mask)
            or wave_model.mask_variable(unit, view, mask) in ("full32", "full64")
            or bool(patterns.definitions(unit).get(view.src.text(mask)) and all(
                is_full32(d.view.src, patterns.unwrap(d.value)) for d in patterns.definitions(unit)[view.src.text(mask)])))


def _shuffle(unit: SourceFile, view: patterns.View, callee: str, call: Node, a: list[Node]) -> Iterator[Hit]:
    src = view.src
    _, width_at = wave_model.SHUFFLE_ARGS[callee]
    edits = []
    if callee in patterns.MASKLESS and len(a) >= 2:
        start, end, text = patterns.maskless_prefix(src, callee, call)
        edits.append(Edit(view.base + start, view.base + end, text))
    if width_at >= len(a) and a:
        edits.append(Edit(view.base + a[-1].end_byte, view.base + a[-1].end_byte, ", 32"))
    if edits:
        yield Hit(*view.span(call), f"{callee} kept to a 32-lane group of the 64-lane wave: width 32, mask-less",
                  edits=tuple(edits))


def _vote(unit: SourceFile, view: patterns.View, callee: str, call: Node, a: list[Node]) -> Iterator[Hit]:
    src = view.src
    if wave_model._is_half(src, call):
        return
    masked = callee.endswith("_sync")
    if masked and len(a) < 2:
        return
    pred = a[1] if masked else (a[0] if a else None)
    if pred is None:
        return
    mask = "" if not masked or _mask_every(unit, view, a[0]) else f" & ({src.text(a[0])})"
    fn = call.child_by_field_name("function")
    start = fn.start_byte
    edits: list[Edit] = []
    if callee in ("__ballot_sync", "__ballot"):
        prefix, suffix = "((unsigned)(__ballot(", f" >> {HALF}){mask})"
    elif callee in ("__any_sync", "__any"):
        prefix, suffix = "(((unsigned)(__ballot(", f" >> {HALF}){mask}) != 0)"
    elif callee in ("__all_sync", "__all"):
        prefix, suffix = "(((unsigned)(__ballot(!(", f" >> {HALF}){mask}) == 0)"
        edits.append(Edit(view.base + pred.end_byte, view.base + pred.end_byte, ")"))
    else:  # __match_any_sync: the lanes of the caller's half holding the same value
        prefix, suffix = f"((unsigned)(__match_any_sync({patterns.FULL_MASK_64}, ", f" >> {HALF}){mask})"
    edits.insert(0, Edit(view.base + start, view.base + pred.start_byte, prefix))
    edits.append(Edit(view.base + call.end_byte, view.base + call.end_byte, suffix))
    yield Hit(*view.span(call), f"{callee} kept to a 32-lane group: the caller's half of the 64-bit ballot, as 32 bits",
              edits=tuple(edits))
