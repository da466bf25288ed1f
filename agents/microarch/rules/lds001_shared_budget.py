"""LDS001: a kernel's shared memory (static + dynamic) over the LDS of a target.

Why: one workgroup may use at most 64 KiB of LDS on gfx942 (MI300X) and 160 KiB (163,840 B, the
    LLVM AMDGPU limit) on gfx950 (MI350X); an NVIDIA H100 block may opt in to 227 KB. A kernel
    sized for Hopper fails to launch (or, for static arrays, to compile) where its LDS does not
    fit. porter adds the kernel's static `__shared__` arrays (sizes from literals, #define and
    constexpr constants) to its dynamic shared memory: the constant third `<<<>>>` argument of
    its launches, or the hipFuncSetAttribute(..., hipFuncAttributeMaxDynamicSharedMemorySize, n)
    it is given, whichever is larger. Over gfx942's 64 KiB but within gfx950's 160 KiB is a
    warning that names the targets (the port runs on gfx950 only); over both is an error.

Before:
    __global__ void big(float* out) { extern __shared__ float buf[]; ... }
    hipFuncSetAttribute((const void*)big, hipFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    big<<<grid, 256, 96 * 1024>>>(out);
After:
    (unchanged; the finding says: 98,304 B per workgroup fits gfx950 (163,840 B), not gfx942
    (65,536 B): shrink the tile or guard the launch by device where gfx942 must run it)

Fix safety: none: the fix is a smaller tile, which changes the algorithm's blocking.

"""

from __future__ import annotations

from collections.abc import Iterator

from porter.kernel_facts import dynamic_sizes, kernels, kib, static_shared_bytes
from porter.lds import GFX942, GFX950
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Severity
from porter.syntax import SourceFile


@rule(id="LDS001", lang="cuda", severity="error",
      trigger=any_of(["__global__"]))
def shared_budget(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for k in kernels(unit):
        static = static_shared_bytes(unit, k)
        if static is None:
            continue
        dynamic = max(dynamic_sizes(unit, k.name), key=lambda d: d.bytes, default=None)
        total = static + (dynamic.bytes if dynamic else 0)
        if total <= GFX942.lds_bytes:
            continue
        parts = f"static {static:,} B"
        if dynamic:
            line = unit.line_col(dynamic.node.start_byte)[0]
            parts += f" + dynamic {dynamic.bytes:,} B ({dynamic.how}, line {line})"
        head = f"kernel `{k.name}` uses {kib(total)} of LDS per workgroup ({parts})"
        if total <= GFX950.lds_bytes:
            yield Hit(k.name_node.start_byte, k.name_node.end_byte,
                      f"{head}: fits gfx950 ({kib(GFX950.lds_bytes)}) but not gfx942 ({kib(GFX942.lds_bytes)}); "
                      "the port runs on gfx950 only unless the tile shrinks for gfx942", severity=Severity.warning)
        else:
            yield Hit(k.name_node.start_byte, k.name_node.end_byte,
                      f"{head}: over gfx950 ({kib(GFX950.lds_bytes)}) and gfx942 ({kib(GFX942.lds_bytes)}); "
                      "shrink the tile (an H100 block may use 227 KB, a CDNA workgroup may not)")
