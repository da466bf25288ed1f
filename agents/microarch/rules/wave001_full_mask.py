"""WAVE001: full 32-bit lane mask passed to a *_sync warp intrinsic.

Why: CDNA wavefronts have 64 lanes, so `0xffffffff` names lanes 0-31 only and a shuffle, vote or
    reduction under it leaves the upper half of the wave out. HIP's *_sync functions take 64-bit
    masks and static_assert that the mask type is 64 bits wide
    (hip/amd_detail/amd_warp_sync_functions.h), so `~0u`, `(unsigned)-1` and a plain `-1` (an int)
    are rejected at compile time as well. And the *_sync forms themselves exist only from ROCm 6.2,
    behind -DHIP_ENABLE_WARP_SYNC_BUILTINS until ROCm 7.0 (and ROCm 7 builds may set
    HIP_DISABLE_WARP_SYNC_BUILTINS).

Before:
    v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned long long any = __ballot_sync(FULL_MASK, v != 0.0f);   // #define FULL_MASK 0xffffffff
    int peers = __match_any_sync(0xffffffff, key);
After:
    v += __shfl_down(v, offset);
    unsigned long long any = __ballot(v != 0.0f);
    int peers = __match_any_sync(0xffffffffffffffffull, key);

    A mask variable or parameter default that only ever holds the 32-bit full mask
    (`unsigned tmask = 0xffffffff; __shfl_sync(tmask, ...)`) is widened with its value, and the
    calls take the mask-less form (a parameter's vote calls keep it: a caller may pass fewer lanes).

Fix safety: safe. A wavefront runs in lockstep, so a shuffle or vote whose mask names every lane is
    the mask-less HIP call (__shfl*, __ballot, __any, __all), which every ROCm release has (HIP C++
    language extensions, "Warp cross-lane functions"): porter drops the mask rather than widening
    it, so the port compiles on ROCm 6.x and 7.x alike. __match_*_sync and __reduce_*_sync have no
    mask-less form in ROCm 6: their mask is widened to 64 bits (they then need ROCm 7, or 6.2+ with
    HIP_ENABLE_WARP_SYNC_BUILTINS). __syncwarp is WAVE007's. A named constant (`#define FULL_MASK
    0xffffffff`) is left defined; only the calls change. The fix removes or widens masks, nothing
    else: offsets and widths chosen for 32 lanes are WAVE002's findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_sites import is_full32, named_full32
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile


@rule(id="WAVE001", lang="cuda", severity="error", fix="safe",
      trigger=any_of(patterns.MASKED_SYNC))
def full_mask(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _full_mask(unit, ctx))


def _full_mask(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    widened: set = set()  # declarations widened: by name, or (start byte, "") of the one a use sees
    for view in patterns.views(unit):
        for callee, call in patterns.calls(view, patterns.MASKED_SYNC):
            arguments = patterns.args(call)
            if not arguments:
                continue
            mask = patterns.unwrap(arguments[0])
            name = named_full32(unit, view, mask)
            variable = _full32_variable(unit, view, mask)  # a local or parameter, const or not
            if not (name or variable or is_full32(view.src, mask)):
                computed = wave_model.computed_mask(view.src, mask)
                if computed is not None and computed[2] and computed[0].start_byte not in widened:
                    widened.add(computed[0].start_byte)
                    yield from _widen_computed(view, *computed[:2])
                continue
            local = wave_model.visible_declaration(view.src, mask)
            key = (local.start_byte, "") if local is not None else view.src.text(mask)
            if variable and key not in widened:
                widened.add(key)
                yield from _widen_variable(unit, view, mask)
            if variable == "parameter" and callee not in patterns.SHUFFLES:
                continue  # a caller may pass fewer lanes: the widened parameter is the mask
            shown = f"`{view.src.text(mask)}`" + (" (0xffffffff)" if name or variable else "")
            said = (f"{shown} as the mask of {callee} names only lanes 0-31 of a 64-lane wavefront "
                    "(and HIP rejects 32-bit mask types)")
            maskless = patterns.maskless_prefix(view.src, callee, call)
            if maskless:
                start, end, text = maskless
                yield Hit(*view.span(call), f"{said}: every lane was meant, which is the mask-less "
                          f"{patterns.MASKLESS[callee]}, in every ROCm release",
                          edits=(Edit(start=view.base + start, end=view.base + end, text=text),))
            elif callee == "__syncwarp":
                yield Hit(*view.span(mask), f"{said}; WAVE007 replaces the whole call")
            else:
                start, end = view.span(mask)
                yield Hit(start, end, f"{said}: use a 64-bit full mask ({callee} has no mask-less form "
                          "before ROCm 7; it needs ROCm 7, or ROCm 6.2+ with -DHIP_ENABLE_WARP_SYNC_BUILTINS)",
                          edits=(Edit(start=start, end=end, text=patterns.FULL_MASK_64),))


_MASK_SETS = """[(init_declarator declarator: (identifier) @n value: (_) @v) @d
                 (optional_parameter_declaration declarator: (identifier) @n default_value: (_) @v) @d]"""


def _full32_variable(unit: SourceFile, view: patterns.View, mask) -> str:
    """"local" or "parameter" (with a default) when `mask` names a variable only ever set to a 32-bit full mask."""
    if wave_model.mask_variable(unit, view, mask) != "full32":
        return ""
    fn = patterns.enclosing(mask, "function_definition")
    name = view.src.text(mask)
    if wave_model.visible_declaration(view.src, mask) is not None:
        return "local"
    for m in view.src.matches(_MASK_SETS, fn) if fn is not None else []:
        if view.src.text(m["n"][0]) == name:
            return "parameter" if m["d"][0].type == "optional_parameter_declaration" else "local"
    return ""


def _widen_variable(unit: SourceFile, view: patterns.View, mask) -> Iterator[Hit]:
    """`unsigned tmask = 0xffffffff;` (or a parameter default) widened with its value to the 64-lane full mask."""
    src, name = view.src, view.src.text(mask)
    fn = patterns.enclosing(mask, "function_definition")
    local = wave_model.visible_declaration(src, mask)
    for m in src.matches(_MASK_SETS, fn):
        if src.text(m["n"][0]) != name or (local is not None and m["d"][0] != local):
            continue
        decl, value = m["d"][0], m["v"][0]
        holder = decl.parent if decl.type == "init_declarator" else decl
        type_node = holder.child_by_field_name("type")
        edits = [Edit(*view.span(value), patterns.FULL_MASK_64)]
        declared = patterns.type_text(src, type_node)
        single = decl.type == "optional_parameter_declaration" or len(holder.children_by_field_name("declarator")) == 1
        if declared in patterns.NARROW_INT and single:
            edits.insert(0, Edit(*view.span(type_node), patterns.WIDER.get(declared, "unsigned long long")))
        yield Hit(*view.span(decl), f"`{name}` holds a 32-bit full mask that reaches a *_sync call: on a 64-lane "
                  "wavefront it names lanes 0-31 only; widened with its value to every lane", edits=tuple(edits))


def _widen_computed(view: patterns.View, decl, value) -> Iterator[Hit]:
    """`int mask = (1 << n) - 1;` widened: a 64-bit type and `1ull` shifts (lanes 32-63 of the wave exist)."""
    src = view.src
    holder = decl.parent
    type_node = holder.child_by_field_name("type")
    if len(holder.children_by_field_name("declarator")) != 1:
        return
    declared = patterns.type_text(src, type_node)
    edits = [Edit(*view.span(type_node), patterns.WIDER.get(declared, "unsigned long long"))]
    for one in src.captures("(number_literal) @n", value) + ([value] if value.type == "number_literal" else []):
        shift = one.parent
        if shift is not None and shift.type == "binary_expression" and shift.child_by_field_name("left") == one:
            edits.append(Edit(*view.span(one), "1ull"))
    yield Hit(*view.span(decl), f"`{src.text(decl.child_by_field_name('declarator'))}` is a lane mask computed in a "
              "32-bit variable that reaches a *_sync call: HIP takes 64-bit masks (lanes 32-63 of the wave); widened, "
              "with its shifts of 1 made 64-bit", edits=tuple(edits))
