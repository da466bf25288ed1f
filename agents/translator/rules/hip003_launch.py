"""HIP003: `k<<<grid, block, shm, stream>>>(args)` rewritten as hipLaunchKernelGGL.

Why: hip-clang compiles triple-chevron launches, so with the default `launch = "chevron"` this
rule reports nothing. Projects that build with older hipcc setups or keep one launch spelling for
tooling ask for `launch = "hipLaunchKernelGGL"`: the macro takes all five launch parameters
(grid and block as dim3, shared bytes and stream default to 0), and a template kernel must be
wrapped in HIP_KERNEL_NAME(...) so the commas of its template arguments survive the macro (a
kernel the file defines as a template is wrapped even when its arguments are deduced).

Before:
    scale<float><<<blocks, 256, 0, stream>>>(x, n);
After:
    hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float>), dim3(blocks), dim3(256), 0, stream, x, n);

Fix safety: safe: the edits insert text around the kernel name and the launch configuration and
never touch the tokens inside it, so HIP001's renames of the same launch still apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, rule
from porter.state import Edit
from porter.syntax import SourceFile

_LAUNCH = "(call_expression (kernel_call_syntax) @config) @call"
# Kernels this file defines as templates: launched with deduced arguments (`k<<<g, b>>>(x)`) they
# still go in HIP_KERNEL_NAME(...), as hipify-clang writes them.
_TEMPLATE_KERNELS = ("(template_declaration (function_definition declarator: (function_declarator "
                     "declarator: [(identifier) @name (qualified_identifier name: (identifier) @name)])))")
_DIM3 = re.compile(r"^dim3\s*[({]")


@rule(id="HIP003", lang="cuda", severity="info", fix="safe", trigger=lambda data, ctx: b"<<<" in data)
def launch(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if ctx.options.launch != "hipLaunchKernelGGL":
        return
    if unit.lang != "cuda":
        if b"<<<" not in unit.data:
            return
        # A .cpp built with `nvcc -x cu` launches with <<<>>>; only the CUDA grammar knows that
        # syntax (the C++ one has no kernel_call_syntax node). Same bytes, so offsets agree.
        unit = SourceFile(unit.path, unit.data, "cuda")
    templates: set[str] | None = None
    for found in unit.matches(_LAUNCH):
        call, config = found["call"][0], found["config"][0]
        if templates is None:
            templates = {unit.text(n) for n in unit.captures(_TEMPLATE_KERNELS)}
        edits = _edits(unit, call, config, templates)
        if edits:
            kernel = unit.text(call.children[0])
            yield Hit(call.start_byte, call.end_byte, f"{kernel}<<<...>>> -> hipLaunchKernelGGL", edits=edits)


def _edits(unit: SourceFile, call, config, templates: set[str]) -> tuple[Edit, ...]:
    kernel, args = call.children[0], call.child_by_field_name("arguments")
    params = [n for n in config.named_children if n.type != "comment"]
    if args is None or not 2 <= len(params) <= 4:
        return ()
    name = unit.text(kernel)
    template = "<" in name or name.rpartition("::")[2] in templates
    edits = [Edit(start=kernel.start_byte, end=kernel.start_byte,
                  text="hipLaunchKernelGGL(" + ("HIP_KERNEL_NAME(" if template else ""))]
    grid, block = params[0], params[1]
    wrap_grid, wrap_block = (not _DIM3.match(unit.text(p)) for p in (grid, block))
    edits.append(Edit(start=kernel.end_byte, end=grid.start_byte,
                      text=(")" if template else "") + ", " + ("dim3(" if wrap_grid else "")))
    if wrap_grid:
        edits.append(Edit(start=grid.end_byte, end=grid.end_byte, text=")"))
    if wrap_block:
        edits.append(Edit(start=block.start_byte, end=block.start_byte, text="dim3("))
        edits.append(Edit(start=block.end_byte, end=block.end_byte, text=")"))
    defaults = ", 0" * (4 - len(params))  # shared bytes and stream default to 0, as in <<<>>>
    has_args = any(n.type != "comment" for n in args.named_children)
    # `k<<<1, n>>>( )`: the empty argument list's blank goes too, so the call ends `0, 0)`
    end = args.start_byte + 1 if has_args else args.end_byte - 1
    edits.append(Edit(start=params[-1].end_byte, end=end, text=defaults + (", " if has_args else "")))
    return tuple(edits)
