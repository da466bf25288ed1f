"""HIP010: symbols and kernels passed where HIP takes `const void*`: HIP_SYMBOL(...) and a cast.

Why: CUDA's runtime header overloads cudaMemcpyToSymbol, cudaFuncSetCacheConfig and their
kin with templates, so `cudaMemcpyToSymbol(coef, ...)` or `cudaFuncSetAttribute(kernel, ...)`
compile with a variable or a kernel name. HIP declares the kernel-taking calls (hipFuncSetAttribute,
hipFuncSetCacheConfig, hipFuncSetSharedMemConfig, hipFuncGetAttributes, hipLaunchKernel,
hipLaunchCooperativeKernel) with `const void*` only, so the kernel needs
`reinterpret_cast<const void*>(...)`; and its symbol calls take a symbol through HIP_SYMBOL(x),
which is `x` on AMD and `&x` on HIP's NVIDIA platform, where the calls take `const void*`. Both
are spelled as hipify-clang writes them. A string (CUDA 4's symbol-by-name) or an argument that
is already cast or wrapped is left alone.

Before:
    cudaMemcpyToSymbol(coef, h_coef, sizeof(coef));
    cudaFuncSetCacheConfig(scale, cudaFuncCachePreferL1);
After:
    cudaMemcpyToSymbol(HIP_SYMBOL(coef), h_coef, sizeof(coef));
    cudaFuncSetCacheConfig(reinterpret_cast<const void*>(scale), cudaFuncCachePreferL1);

Fix safety: safe: HIP_SYMBOL and the cast change no value on AMD; the names are HIP001's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

# The argument (0-based) that is a device symbol, per runtime call (hipify-perl's transformHostFunctions).
SYMBOL_ARG = {"cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0, "cudaGetSymbolAddress": 1,
              "cudaGetSymbolSize": 1, "cudaMemcpyFromSymbol": 1, "cudaMemcpyFromSymbolAsync": 1,
              "cudaGraphMemcpyNodeSetParamsToSymbol": 1, "cudaGraphMemcpyNodeSetParamsFromSymbol": 2,
              "cudaGraphExecMemcpyNodeSetParamsToSymbol": 2, "cudaGraphExecMemcpyNodeSetParamsFromSymbol": 3,
              "cudaGraphAddMemcpyNodeToSymbol": 4, "cudaGraphAddMemcpyNodeFromSymbol": 5}
# The argument that is a kernel, per runtime call HIP declares with `const void*` only.
KERNEL_ARG = {"cudaFuncSetAttribute": 0, "cudaFuncSetCacheConfig": 0, "cudaFuncSetSharedMemConfig": 0,
              "cudaLaunchKernel": 0, "cudaLaunchCooperativeKernel": 0, "cudaFuncGetAttributes": 1}
_CALLS = "(call_expression function: (identifier) @fn arguments: (argument_list) @args) @call"
_DONE = re.compile(r"^(?:HIP_SYMBOL\s*\(|reinterpret_cast\s*<|static_cast\s*<|\(\s*(?:const\s+)?void\s*\*\s*\))")
# `cuda` first, so the regex engine looks for that literal; the lookbehind is the `\b` before it.
_WANTED = re.compile(rb"cuda(?<![A-Za-z0-9_]cuda)(?:MemcpyToSymbol|MemcpyFromSymbol|GetSymbol|Graph\w*Symbol|FuncSet"
                     rb"|FuncGetAttributes|Launch(?:Cooperative)?Kernel\b)")


@rule(id="HIP010", lang="cuda", severity="info", fix="safe", trigger=lambda data, ctx: bool(_WANTED.search(data)))
def symbol_arguments(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if not _WANTED.search(unit.data):
        return
    for found in unit.matches(_CALLS):
        name = unit.text(found["fn"][0])
        if name not in SYMBOL_ARG and name not in KERNEL_ARG:
            continue
        args = [n for n in found["args"][0].named_children if n.type != "comment"]
        index = SYMBOL_ARG.get(name, KERNEL_ARG.get(name))
        if index is None or index >= len(args):
            continue
        arg = args[index]
        text = unit.text(arg)
        if arg.type in ("string_literal", "concatenated_string") or _DONE.match(text):
            continue
        before = "HIP_SYMBOL(" if name in SYMBOL_ARG else "reinterpret_cast<const void*>("
        what = "symbol" if name in SYMBOL_ARG else "kernel"
        yield Hit(arg.start_byte, arg.end_byte, f"{name}: {what} argument {text} -> {before}{text})",
                  edits=(Edit(start=arg.start_byte, end=arg.start_byte, text=before),
                         Edit(start=arg.end_byte, end=arg.end_byte, text=")")))
