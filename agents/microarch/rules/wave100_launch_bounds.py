"""WAVE100: __launch_bounds__ minimum blocks per SM read as minimum waves per SIMD.

Why: CUDA's `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` asks the compiler to fit MIN_BLOCKS
    blocks per SM. HIP keeps the spelling but reads the second argument as the minimum number of
    waves per execution unit (per SIMD; HIP programming guide, and clang maps it to
    amdgpu-waves-per-eu), so the same number means a different occupancy and register budget.
    The CUDA intent converts to waves per SIMD as
    ceil(MIN_BLOCKS x ceil(MAX_THREADS / 64) / 4): a CU has 4 SIMDs and a block is
    ceil(MAX_THREADS / 64) wavefronts. A CU holds at most 8 waves per SIMD (HARDWARE.md), so the
    hint is capped at 8.

Before:
    __global__ void __launch_bounds__(128, 8) k(float* p);
After:
    __global__ void __launch_bounds__(128) __attribute__((amdgpu_waves_per_eu(4))) k(float* p);

Fix safety: safe: both attributes are occupancy hints; the flat workgroup size bound is kept.
    Report-only when either argument is not a constant (a template parameter).
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import hardware
from porter.kernel_facts import constant
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

_SPEC = hardware.get(hardware.TARGET).spec  # gfx950: wave 64, 4 SIMDs per CU, 8 waves per SIMD
WAVE = int(_SPEC.wave_size.value)
SIMDS_PER_CU = int(_SPEC.simds_per_cu.value)
MAX_WAVES_PER_SIMD = int(_SPEC.max_waves_per_cu.value) // SIMDS_PER_CU


def waves_per_eu(threads: int, min_blocks: int) -> tuple[int, str]:
    """(waves per SIMD, the arithmetic as text) for CUDA's (max threads, min blocks per SM)."""
    per_block = -(-threads // WAVE)
    per_cu = min_blocks * per_block
    n = -(-per_cu // SIMDS_PER_CU)
    text = (f"{min_blocks} blocks x ceil({threads}/{WAVE}) = {per_block} waves = {per_cu} waves per CU; "
            f"/ {SIMDS_PER_CU} SIMDs = {n} waves per SIMD")
    if n > MAX_WAVES_PER_SIMD:
        text += f", capped at {MAX_WAVES_PER_SIMD} (a SIMD holds at most {MAX_WAVES_PER_SIMD} waves)"
        n = MAX_WAVES_PER_SIMD
    return n, text


@rule(id="WAVE100", lang="cuda", severity="warning", fix="safe",
      trigger=any_of(["__launch_bounds__"]))
def launch_bounds(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if unit.lang != "cuda":
        return
    for node in unit.captures("(launch_bounds) @lb"):
        args = [c for c in node.named_children if c.type != "comment"]
        if len(args) != 2:
            continue
        threads, blocks = constant(unit, args[0]), constant(unit, args[1])
        shown = " ".join(unit.text(node).split())
        head = (f"{shown}: CUDA's second argument is minimum blocks per SM; HIP reads it as minimum waves per "
                "SIMD (amdgpu_waves_per_eu)")
        if threads is None or blocks is None or threads <= 0 or blocks <= 0:
            yield Hit(node.start_byte, node.end_byte, f"{head}; its value is not a constant here: convert by hand "
                      "as ceil(minBlocks x ceil(threads / 64) / 4)")
            continue
        n, arithmetic = waves_per_eu(threads, blocks)
        new = f"__launch_bounds__({unit.text(args[0])})"
        if n > 1:
            new += f" __attribute__((amdgpu_waves_per_eu({n})))"
            tail = f"amdgpu_waves_per_eu({n})"
        else:
            tail = "no occupancy constraint beyond one wave per SIMD, so only the thread bound is kept"
        yield Hit(node.start_byte, node.end_byte, f"{head}: {arithmetic} -> {tail}",
                  edits=(Edit(node.start_byte, node.end_byte, new, "WAVE100"),))
