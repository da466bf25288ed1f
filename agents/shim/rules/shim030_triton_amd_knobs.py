"""SHIM030: the helper that passes AMD-only Triton knobs on AMD and nothing elsewhere.

Why: TRI020/TRI021 give a kernel's configs and launches the knobs AMD's Triton backend reads
(waves_per_eu, matrix_instr_nonkdim, kpack), but NVIDIA's backend rejects options it does not
know ("Keyword argument waves_per_eu was specified but unrecognised", seen with Triton 3.6 on an
H200), and a port must keep running there. The microarch rules therefore write
`**_porter_amd_knobs(...)`; this rule defines that helper once in the module, after its imports.
It asks torch which platform it runs on (no GPU needed, so Triton's interpreter works too) and
falls back to Triton's active driver when torch is absent.

Before:
    import triton
    ...
    kernel[grid](x, BLOCK=1024, num_warps=2, **_porter_amd_knobs(waves_per_eu=0))
After:
    import triton


    def _porter_amd_knobs(**knobs):
        ...
    ...
    kernel[grid](x, BLOCK=1024, num_warps=2, **_porter_amd_knobs(waves_per_eu=0))

Fix safety: safe: a module-private function, used only by porter's own rewrites.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.perfmodel.triton_configs import AMD_KNOBS_HELPER
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit

# Inserted at the end of the last import line: two blank lines around it, as PEP 8 asks.
DEFINITION = f'''


def {AMD_KNOBS_HELPER}(**knobs):
    """AMD-only Triton options (added by porter): passed on ROCm, dropped on other backends."""
    try:
        import torch

        on_amd = torch.version.hip is not None
    except ImportError:
        on_amd = triton.runtime.driver.active.get_current_target().backend == "hip"
    return knobs if on_amd else {{}}'''


def _uses_the_helper(unit: PythonFile) -> bool:
    return AMD_KNOBS_HELPER.encode() in unit.data


@rule(id="SHIM030", lang="triton", severity="info", fix="safe", when=_uses_the_helper)
def triton_amd_knobs(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    # Read with CPython's parser: this rule needs only top-level statements and one call's span,
    # and runs on every module the microarch rules rewrote (libcst would parse each one again).
    found = _with_ast(unit) if unit.tree is not None else _with_libcst(unit)
    if found is not None:
        at, (start, end) = found
        yield Hit(start, end, f"defines {AMD_KNOBS_HELPER} after the imports: AMD-only knobs on ROCm, none elsewhere",
                  edits=(Edit(at, at, DEFINITION),))


def _with_ast(unit: PythonFile) -> tuple[int, tuple[int, int]] | None:
    """Where the definition goes (the end of the last top-level import line), and the first use."""
    body = unit.tree.body  # type: ignore[union-attr]
    if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == AMD_KNOBS_HELPER for s in body):
        return None
    uses = [n for n in ast.walk(unit.tree) if isinstance(n, ast.Call)  # type: ignore[arg-type]
            and isinstance(n.func, ast.Name) and n.func.id == AMD_KNOBS_HELPER]
    if not uses:
        return None
    first = min(uses, key=lambda n: (n.lineno, n.col_offset))
    last = max((i for i, s in enumerate(body) if isinstance(s, (ast.Import, ast.ImportFrom))), default=None)
    at = 0
    if last is not None:
        # The import's whole line: statements after it joined by `;` belong to it.
        at = unit.ast_span(body[last])[1]
        for stmt in body[last + 1:]:
            start, end = unit.ast_span(stmt)
            between = unit.data[at:start].replace(b"\\\r\n", b"").replace(b"\\\n", b"")  # continuations
            if b"\n" in between or b"\r" in between:  # a NEWLINE (a trailing `;` or a comment before it)
                break
            at = end
    return at, unit.ast_span(first)


def _with_libcst(unit: PythonFile) -> tuple[int, tuple[int, int]] | None:
    """The same from libcst's tree, for a module CPython's parser does not take."""
    module = unit.module
    body = module.body
    if any(isinstance(s, cst.FunctionDef) and s.name.value == AMD_KNOBS_HELPER for s in body):
        return None
    uses = [n for n in src.find(module, cst.Call) if isinstance(n.func, cst.Name) and n.func.value == AMD_KNOBS_HELPER]
    if not uses:
        return None
    imports = [s for s in body if isinstance(s, cst.SimpleStatementLine)
               and any(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)]
    return (unit.span(imports[-1])[1] if imports else 0), unit.span(uses[0])
