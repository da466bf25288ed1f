"""TRI001: Triton's CUDA libdevice module replaced by the portable libdevice.

Why: `triton.language.extra.cuda.libdevice` binds NVIDIA's libdevice (__nv_* bitcode); on a ROCm
build of Triton its calls do not lower for gfx950. `triton.language.extra.libdevice` dispatches to
the backend's library (ocml on AMD), so the import, `from ... import libdevice` and a
`tl.extra.cuda.libdevice.f(...)` chain become the portable spelling. About 150 CUDA libdevice
functions have no HIP counterpart (the *_rn/_rz/_ru/_rd roundings, rcp_*, the fast_* and
bit-cast helpers): those with a plain Triton equivalent are rewritten to it, the rest reported.

Before:
    from triton.language.extra.cuda import libdevice
    y = libdevice.rcp_rn(x) + tl.extra.cuda.libdevice.tanh(x)
After:
    from triton.language.extra import libdevice
    y = tl.div_rn(1.0, x) + tl.extra.libdevice.tanh(x)

Fix safety: safe: the portable module has the same signatures, and each rewritten function is
the same IEEE operation (div_rn, sqrt_rn, bit casts, clamp) or, for fast_*, the accurate form.
A CUDA-only function without an equivalent (jn, normcdfinv, double2int_rz, ...) is an error.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity

CUDA = "triton.language.extra.cuda.libdevice"
PORTABLE = "triton.language.extra.libdevice"
# Functions of triton.language.extra.cuda.libdevice that triton.language.extra.hip.libdevice lacks
# (Triton 3.9; `dir()` of both modules), with the Triton expression that computes the same.
# `{tl}` is the file's name for triton.language, `{0}`, `{1}` the arguments.
EQUIVALENT = {
    "div_rn": "{tl}.div_rn({0}, {1})",
    "rcp_rn": "{tl}.div_rn(1.0, {0})",
    "sqrt_rn": "{tl}.sqrt_rn({0})",
    "saturatef": "{tl}.clamp({0}, 0.0, 1.0)",
    "float_as_int": "{0}.to({tl}.int32, bitcast=True)",
    "float_as_uint": "{0}.to({tl}.uint32, bitcast=True)",
    "int_as_float": "{0}.to({tl}.float32, bitcast=True)",
    "uint_as_float": "{0}.to({tl}.float32, bitcast=True)",
    "double_as_longlong": "{0}.to({tl}.int64, bitcast=True)",
    "longlong_as_double": "{0}.to({tl}.float64, bitcast=True)",
    "fast_logf": "{tl}.log({0})",
    "fast_log2f": "{tl}.log2({0})",
    "fast_sinf": "{tl}.sin({0})",
    "fast_cosf": "{tl}.cos({0})",
}
CUDA_ONLY = frozenset(EQUIVALENT) | frozenset((
    "add_rd add_ru add_rz sub_rd sub_ru sub_rz mul_rd mul_ru mul_rz mul_rn add_rn sub_rn div_rd div_ru "
    "div_rz fma_rd fma_ru fma_rz fma_rn rcp_rd rcp_ru rcp_rz rcp64h sqrt_rd sqrt_ru sqrt_rz rsqrt_rn brev "
    "byte_perm cbrt rcbrt cospi sinpi erfcinv exp10 fast_exp10f fast_log10f fast_powf fast_tanf fdim ffs "
    "hadd rhadd jn yn logb mul24 mulhi norm3d norm4d rnorm3d rnorm4d normcdf normcdfinv remainder rhypot "
    "sad scalbn tgamma llround double2hiint double2loint hiloint2double").split()) | frozenset(
    f"{a}2{b}_{r}" for a in ("float", "double") for b in ("int", "uint", "ll", "ull") for r in ("rd", "rn", "ru", "rz")
) | frozenset(f"{a}2{b}_{r}" for a in ("int", "uint", "ll", "ull") for b in ("float", "double")
              for r in ("rd", "rn", "ru", "rz")) | frozenset(
    f"double2float_{r}" for r in ("rd", "rn", "ru", "rz"))


def _names_libdevice(unit: PythonFile) -> bool:
    # Every name this rule resolves ends in, or passes through, a `libdevice` the file spells.
    return b"libdevice" in unit.data


@rule(id="TRI001", lang="triton", severity="info", fix="safe", when=_names_libdevice)
def libdevice(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    tl = src.local_name(names, "triton.language", "triton.language")
    # Planned rewrites inside expressions: (start, end, text). A call replaced whole carries the
    # rewrites of its arguments in its new text, so they are applied innermost first.
    planned: list[tuple[int, int, str]] = []
    hits: list[Hit] = []

    for node in src.find(unit.module, cst.Attribute):
        # `tl.extra.cuda.libdevice`: drop the `.cuda` of the chain itself (aliases are fixed at the import)
        if node.attr.value != "libdevice" or not isinstance(node.value, cst.Attribute):
            continue
        inner = node.value
        if inner.attr.value != "cuda" or src.resolve(node, names) != CUDA:
            continue
        start, end = unit.span(inner)
        text = unit.code(inner.value)
        planned.append((start, end, text))
        hits.append(Hit(start, end, f"{unit.code(node)} -> {text}.libdevice", edits=(Edit(start, end, text),)))

    calls = []
    for call in src.find(unit.module, cst.Call):
        full = src.call_name(call, names) or ""
        if (full.startswith(CUDA + ".") or full.startswith(PORTABLE + ".")) and full.rsplit(".", 1)[-1] in CUDA_ONLY:
            calls.append((unit.span(call), call, full.rsplit(".", 1)[-1]))
    for (start, end), call, fn in sorted(calls, key=lambda c: c[0][1] - c[0][0]):
        args = [a for a in call.args if a.keyword is None and not a.star]
        template = EQUIVALENT.get(fn)
        if template is not None and len(args) == len(call.args) == template.count("{") - template.count("{tl}"):
            text = template.format(*(_operand(unit, a.value, planned) for a in args), tl=tl)
            planned.append((start, end, text))
            hits.append(Hit(start, end, f"libdevice.{fn} has no HIP libdevice counterpart: {text}",
                            edits=(Edit(start, end, text),)))
        else:
            hits.append(Hit(start, end, f"libdevice.{fn} exists only in NVIDIA's libdevice; no ocml function on gfx950",
                            severity=Severity.error))

    for node in src.find(unit.module, cst.ImportFrom):
        if node.module is None or node.relative:
            continue
        mod = src.dotted(node.module)
        imported = [] if isinstance(node.names, cst.ImportStar) else [src.dotted(a.name) for a in node.names]
        if mod == "triton.language.extra.cuda" and imported == ["libdevice"]:
            new = "triton.language.extra"
        elif mod is not None and (mod == CUDA or mod.startswith(CUDA + ".")):
            new = PORTABLE + mod[len(CUDA):]
        else:
            continue
        start, end = unit.span(node.module)
        hits.append(Hit(start, end, f"{mod} -> {new}", edits=(Edit(start, end, new),)))

    for node in src.find(unit.module, cst.Import):
        for alias in node.names:
            mod = src.dotted(alias.name) or ""
            if mod == CUDA or mod.startswith(CUDA + "."):
                start, end = unit.span(alias.name)
                new = PORTABLE + mod[len(CUDA):]
                hits.append(Hit(start, end, f"{mod} -> {new}", edits=(Edit(start, end, new),)))

    # Outer rewrites first, so that one containing another is taken and the inner one counts as done.
    yield from sorted(hits, key=lambda h: (h.start, -h.end))


def _operand(unit: PythonFile, node: cst.BaseExpression, planned: list[tuple[int, int, str]]) -> str:
    start, end = unit.span(node)
    inside = sorted(e for e in planned if start <= e[0] and e[1] <= end)
    outermost = [e for e in inside if not any(o != e and o[0] <= e[0] and e[1] <= o[1] for o in inside)]
    text, pos = [], start
    for s, e, t in outermost:
        text.append(unit.data[pos:s].decode())
        text.append(t)
        pos = e
    text.append(unit.data[pos:end].decode())
    code = "".join(text)
    simple = isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float))
    return code if simple else f"({code})"
