"""LDS002: shared-memory configuration calls: what each one still does on CDNA.

Why: CUDA code tunes shared memory with calls the translator renames to HIP, but only one of
    them has an effect on AMD Instinct GPUs:
    - hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, n) is meaningful: it
      sets the dynamic LDS a kernel may be launched with; n plus the kernel's static LDS must fit
      the workgroup's LDS (64 KiB on gfx942, 160 KiB on gfx950; LDS001 checks the sum).
    - hipFuncAttributePreferredSharedMemoryCarveout is a no-op: CDNA's LDS is its own memory, not
      a share of the L1 cache, so there is nothing to carve out (HIP API reference: the hint is
      ignored on AMD devices).
    - hipFuncSetCacheConfig, hipDeviceSetCacheConfig, hipCtxSetCacheConfig are no-ops: "AMD
      devices ... do not support reconfigurable cache. This hint is ignored" (HIP API reference).
    - hipDeviceSetSharedMemConfig, hipFuncSetSharedMemConfig, hipCtxSetSharedMemConfig are
      no-ops: LDS banks are always 4 bytes wide; "AMD devices ... do not support shared cache
      banking, and the hint is ignored" (HIP API reference). Code that chose 8-byte banks for
      double arrays gets 4-byte banks: LDS003 scores such layouts with the bank model.
    HIP declares them all, so they are kept; the report says which do nothing. What does need
    porting is the kernel argument: CUDA's runtime API has template overloads taking the kernel
    itself (`cudaFuncSetAttribute(k, ...)`), HIP only `const void* func`, so a bare kernel name
    no longer compiles; it becomes `reinterpret_cast<const void*>(&k)`, as AMD's hip-tests write it.

Before:
    hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte);
    hipFuncSetCacheConfig((const void*)k, hipFuncCachePreferShared);
After:
    hipFuncSetAttribute(reinterpret_cast<const void*>(&k), hipFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte);      // reported: no-op on CDNA
    hipFuncSetCacheConfig((const void*)k, hipFuncCachePreferShared);  // reported: no-op on CDNA

Fix safety: safe: the cast is what the HIP signature takes. No-op calls are kept: removing one
    would also remove its error check, and they are harmless; a person may delete them.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.kernel_facts import MAX_DYNAMIC, SET_ATTRIBUTE, constant
from porter.lds import GFX942, GFX950
from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

CACHE_CONFIG = frozenset({"hipFuncSetCacheConfig", "hipDeviceSetCacheConfig", "hipCtxSetCacheConfig",
                          "cudaFuncSetCacheConfig", "cudaDeviceSetCacheConfig", "cuCtxSetCacheConfig"})
BANK_CONFIG = frozenset({"hipDeviceSetSharedMemConfig", "hipFuncSetSharedMemConfig", "hipCtxSetSharedMemConfig",
                         "cudaDeviceSetSharedMemConfig", "cudaFuncSetSharedMemConfig", "cuCtxSetSharedMemConfig"})
CARVEOUT = frozenset({"hipFuncAttributePreferredSharedMemoryCarveout", "cudaFuncAttributePreferredSharedMemoryCarveout"})
FUNC_FIRST = frozenset({"hipFuncSetAttribute", "hipFuncSetCacheConfig", "hipFuncSetSharedMemConfig"})
NO_OP = "is a no-op on CDNA (the HIP API reference: ignored on AMD devices); kept, may be deleted"


def _functions(unit: SourceFile) -> set[str]:
    """Names of the functions this file declares or defines."""
    return {unit.text(d.child_by_field_name("declarator")).split("::")[-1]
            for d in unit.captures("(function_declarator) @f")}


def _kernel_pointer(unit: SourceFile, fn: str, a: list) -> tuple[Edit, ...]:
    """The cast HIP's `const void* func` parameter needs where CUDA passed the kernel itself."""
    if fn not in FUNC_FIRST or not a:
        return ()
    arg = patterns.unwrap(a[0])
    name = arg.child_by_field_name("argument") if arg.type == "pointer_expression" else arg
    name = name.child_by_field_name("name") if name is not None and name.type == "template_function" else name
    if name is None or name.type != "identifier" or unit.text(name) not in _functions(unit):
        return ()  # a variable may already hold a const void*: only a function this file declares is cast
    if arg.type in ("identifier", "template_function"):
        target = f"&{unit.text(arg)}"
    elif arg.type == "pointer_expression" and unit.text(arg.child_by_field_name("operator")) == "&":
        target = unit.text(arg)
    else:
        return ()  # already a cast, or an expression porter does not second-guess
    return (Edit(a[0].start_byte, a[0].end_byte, f"reinterpret_cast<const void*>({target})", "LDS002"),)


@rule(id="LDS002", lang="cuda", severity="info", fix="safe",
      trigger=any_of(CACHE_CONFIG | BANK_CONFIG | SET_ATTRIBUTE))
def shared_config(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    names = CACHE_CONFIG | BANK_CONFIG | SET_ATTRIBUTE
    for fn, call in patterns.calls(patterns.views(unit)[0], names):
        a = patterns.args(call)
        edits = _kernel_pointer(unit, fn, a)
        cast = (f"; the kernel argument becomes `{edits[0].text}` (HIP takes const void*)" if edits else "")
        if fn in CACHE_CONFIG:
            yield Hit(call.start_byte, call.end_byte, f"{fn}: cache configuration {NO_OP}: CDNA has no L1/shared "
                      f"split to choose (LDS is separate: {_kib(GFX942)} per CU on gfx942, {_kib(GFX950)} on gfx950)"
                      + cast, edits=edits)
        elif fn in BANK_CONFIG:
            wide = any("EightByte" in unit.text(x) for x in a)
            extra = (": 8-byte banks were asked for, CDNA banks are 4 bytes; an 8-byte access covers two banks"
                     " (LDS003 scores the layouts)") if wide else ": CDNA LDS banks are always 4 bytes"
            yield Hit(call.start_byte, call.end_byte, f"{fn}: bank-size configuration {NO_OP}{extra}{cast}", edits=edits)
        elif len(a) == 3 and unit.text(a[1]) in CARVEOUT:
            yield Hit(call.start_byte, call.end_byte, f"{fn}(..., {unit.text(a[1])}, ...): the carveout {NO_OP}: "
                      "CDNA's LDS is not carved out of L1" + cast, edits=edits)
        elif len(a) == 3 and unit.text(a[1]) in MAX_DYNAMIC:
            n = constant(unit, a[2])
            size = f"{n:,} B" if n is not None else f"`{unit.text(a[2])}`"
            yield Hit(call.start_byte, call.end_byte, f"{fn}(..., {unit.text(a[1])}, {size}) is meaningful on ROCm "
                      f"and kept: it sets the kernel's dynamic LDS; with the static LDS it must fit {_kib(GFX942)} on gfx942, "
                      f"{_kib(GFX950)} on gfx950 (LDS001 checks the sum)" + cast, edits=edits)


def _kib(target) -> str:
    """A target's LDS per workgroup as the messages write it: "160 KiB"."""
    return f"{target.lds_bytes // 1024} KiB"
