"""WAVE005: per-warp or per-lane shared array sized for 32-lane warps.

Why: a CDNA wavefront has 64 lanes, so a scratch row with one slot per lane needs 64 slots:
    `__shared__ float row[32]` indexed by the lane overflows when lanes 32-63 write it. A block of
    N threads is N / 64 wavefronts, not N / 32, so an array with one slot per warp
    (`partial[BLOCK / 32]`, or `partial[32]` for a block of up to 1024 threads) has more slots than
    CDNA fills: still in range, but the loop that reads the slots must count waves with warpSize
    (WAVE003), or it reads slots nobody wrote.

Before:
    __shared__ float lane_row[32];            // lane_row[threadIdx.x % warpSize] = ...
    __shared__ float partial[BLOCK / 32];     // partial[warp] = ...: in range, reported as info
After:
    __shared__ float lane_row[64];
    __shared__ float partial[BLOCK / 32];

Fix safety: safe for a one-dimensional `[32]` indexed anywhere by a lane number (a lane name, or a
    thread index `% warpSize`, `% 32`, `& 31`): it becomes `[64]`, the most lanes a wave has on either
    vendor, so it is right on both (NVIDIA keeps 32 unused slots). Not when the file takes its
    sizeof, which would change. Arrays with one slot per warp are not changed, and why is said:
    `[32]` indexed by a warp number holds the 16 waves of a 1024-thread block on CDNA (32 warps on
    NVIDIA), and `[BLOCK / 32]` holds BLOCK / 64 waves with room to spare. `[WARP_SIZE]` follows
    WAVE003's rewrite of WARP_SIZE. A `[32]` whose indices say neither lane nor warp may be a tile:
    a warning, with the doubt stated.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_sites import _counts_warps, _index_kinds, _sizeof_taken, _warp_size_name
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

_SHARED = "(declaration declarator: (array_declarator) @array) @decl"
WAVES = "counts 32-lane warps; a CDNA wavefront has 64 lanes, so a block has half as many"
WAVE64 = "a CDNA wavefront has 64 lanes"
DOUBT = "nothing here says whether 32 is the warp size or a tile width"


@rule(id="WAVE005", lang="cuda", severity="warning", fix="safe",
      trigger=any_of(["__shared__"]))
def warp_shared(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    yield from wave_model.gate(unit, ctx, _warp_shared(unit, ctx))


def _warp_shared(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for m in unit.matches(_SHARED):
        decl, array = m["decl"][0], m["array"][0]
        if not any(unit.text(c) == "__shared__" for c in decl.children):
            continue
        sizes = []
        while array.type == "array_declarator":
            if array.child_by_field_name("size") is not None:
                sizes.append(patterns.unwrap(array.child_by_field_name("size")))
            array = array.child_by_field_name("declarator")
        name, file = unit.text(array), patterns.views(unit)[0]
        for size in reversed(sizes):
            shown = f"__shared__ {name}[{unit.text(size)}]"
            span = (size.start_byte, size.end_byte)
            if _counts_warps(unit, size):
                yield Hit(*span, f"{shown} {WAVES}: a block of N threads fills N / 64 of its slots on CDNA, still in "
                          "range; the code that reads the slots must count waves with warpSize (WAVE003)",
                          severity=Severity.info)
            elif warp := _warp_size_name(unit, size):
                yield Hit(*span, f"{shown} has a slot per lane of a 32-lane warp{warp}; {WAVE64}: right once the "
                          "constant is chosen per target (WAVE003 rewrites a warp-size constant defined here)")
            elif len(sizes) == 1 and size.type == "number_literal" and patterns.value(unit, file, size) == 32:
                kinds = _index_kinds(unit, name)
                if "lane" in kinds:
                    said = f"{shown} is indexed by a lane number (`{kinds['lane']}`); {WAVE64}, so lanes 32-63 index past its end"
                    if _sizeof_taken(unit, name):
                        yield Hit(*span, f"{said}; the file takes sizeof({name}), so it is left for a person",
                                  severity=Severity.error)
                    else:
                        yield Hit(*span, f"{said}: size it for 64 lanes, right on both vendors",
                                  severity=Severity.error, edits=(Edit(*span, "64"),))
                elif "warp" in kinds:
                    yield Hit(*span, f"{shown} holds (indexed by `{kinds['warp']}`) a slot per warp: in range on CDNA, "
                              "where a 1024-thread block has 16 waves (32 warps on NVIDIA)", severity=Severity.info)
                else:
                    yield Hit(*span, f"{shown} may hold a slot per 32-lane warp of a 1024-thread block, or per lane; "
                              f"{WAVE64}: {DOUBT}")


