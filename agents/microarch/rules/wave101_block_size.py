"""WAVE101: block size not a multiple of the 64-lane wavefront.

Why: a CDNA workgroup runs as ceil(threads / 64) wavefronts of 64 lanes; a block of 96 threads
    (a whole number of 32-lane warps) runs 2 wavefronts with 32 of the last wave's 64 lanes idle,
    and a 32-thread block leaves half of its only wave idle. The lanes still occupy registers and
    issue slots. Block shapes are read from launches (`<<<grid, block>>>` with an integer, a
    `dim3(...)`, or a `dim3` variable of constant shape) and from `__launch_bounds__`.

Before:
    dim3 block(32, 3);
    k<<<grid, block>>>(p);
After:
    dim3 block(64, 3);   // or any shape whose product is a multiple of 64, adjusting the indexing
    k<<<grid, block>>>(p);

Fix safety: none: the block shape decides the kernel's indexing and tiling.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import hardware
from porter.kernel_facts import constant, dim3_value, launches
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

WAVE = hardware.get(hardware.TARGET).wave_size


def _waste(threads: int) -> str:
    waves = -(-threads // WAVE)
    idle = waves * WAVE - threads
    return (f"{threads} threads = {waves} wavefront{'s' if waves > 1 else ''} of {WAVE} lanes with {idle} lanes idle "
            f"({100 * idle / (waves * WAVE):.0f}% of the lanes)")


@rule(id="WAVE101", lang="cuda", severity="warning",
      trigger=any_of(["<<<", "__launch_bounds__"]))
def block_size(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for launch in launches(unit):
        if len(launch.config) < 2:
            continue
        shape = dim3_value(unit, launch.config[1])
        if shape is None:
            continue
        threads = shape[0] * shape[1] * shape[2]
        if threads % WAVE:
            node = launch.config[1]
            dims = " x ".join(str(d) for d in shape if d != 1) or "1"
            yield Hit(node.start_byte, node.end_byte, f"launch of `{launch.kernel}` with block `{unit.text(node)}` "
                      f"({dims}): {_waste(threads)}; partial wavefronts waste lanes on CDNA")
    for node in unit.captures("(launch_bounds) @lb") if unit.lang == "cuda" else ():
        args = [c for c in node.named_children if c.type != "comment"]
        threads = constant(unit, args[0]) if args else None
        if threads and threads % WAVE:
            yield Hit(args[0].start_byte, args[0].end_byte, f"__launch_bounds__ allows {_waste(threads)}; "
                      "partial wavefronts waste lanes on CDNA")
