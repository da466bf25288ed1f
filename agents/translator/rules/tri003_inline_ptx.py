"""TRI003: inline PTX in tl.inline_asm_elementwise.

Why: `tl.inline_asm_elementwise` pastes its string into the kernel's assembly. PTX in it
(`ex2.approx.f32 $0, $1;`) is not GCN: the kernel does not compile for gfx950. The common
one-instruction idioms have a Triton equivalent that lowers to the native AMD instruction
(v_exp_f32, v_rcp_f32, v_rsq_f32, v_cvt_pk_bf16_f32), so the call is replaced by it. Anything
else is an error whose detail carries the asm text for the model or a person.

Catalog (one instruction, pack=1, f32 in and out unless said):
    ex2.approx[.ftz].f32 -> tl.exp2(x)          lg2.approx[.ftz].f32 -> tl.log2(x)
    rcp.approx[.ftz].f32 -> 1.0 / x             rsqrt.approx[.ftz].f32 -> tl.rsqrt(x)
    sqrt.approx[.ftz].f32 -> tl.sqrt(x)         tanh.approx.f32 -> tl.extra.libdevice.tanh(x)
    sin.approx[.ftz].f32 -> tl.sin(x)           cos.approx[.ftz].f32 -> tl.cos(x)
    mul.hi.u32 -> tl.umulhi(a, b)               cvt.rn.bf16x2.f32 $0, hi, lo (an int32/uint32
    holding two bf16) -> the two values rounded to bf16, bit-cast to 16 bits and packed.

Before:
    y = tl.inline_asm_elementwise("ex2.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                  is_pure=True, pack=1)
After:
    y = tl.exp2(x)

Fix safety: safe for the catalog: each replacement computes the same value to within the PTX
approximation's documented error (the approx forms are at least as accurate on AMD), and the
bf16 packing is bit-exact (round to nearest even both ways). Other asm is reported, never run.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit

ASM = "triton.language.inline_asm_elementwise"
F32 = {"float32"}
# normalized asm (whitespace collapsed, no trailing ';') -> (argument count, result dtypes, template)
UNARY_F32 = {
    "ex2.approx.f32": "{tl}.exp2({0})", "ex2.approx.ftz.f32": "{tl}.exp2({0})",
    "lg2.approx.f32": "{tl}.log2({0})", "lg2.approx.ftz.f32": "{tl}.log2({0})",
    "rcp.approx.f32": "(1.0 / {0})", "rcp.approx.ftz.f32": "(1.0 / {0})",
    "rsqrt.approx.f32": "{tl}.rsqrt({0})", "rsqrt.approx.ftz.f32": "{tl}.rsqrt({0})",
    "sqrt.approx.f32": "{tl}.sqrt({0})", "sqrt.approx.ftz.f32": "{tl}.sqrt({0})",
    "tanh.approx.f32": "{tl}.extra.libdevice.tanh({0})",
    "sin.approx.f32": "{tl}.sin({0})", "sin.approx.ftz.f32": "{tl}.sin({0})",
    "cos.approx.f32": "{tl}.cos({0})", "cos.approx.ftz.f32": "{tl}.cos({0})",
}
CATALOG: dict[str, tuple[int, set[str], str]] = {
    **{f"{op} $0, $1": (1, F32, t) for op, t in UNARY_F32.items()},
    "mul.hi.u32 $0, $1, $2": (2, {"uint32"}, "{tl}.umulhi({0}, {1})"),
    "cvt.rn.bf16x2.f32 $0, $1, $2": (2, {"int32", "uint32"}, "PACK({0}, {1})"),
    "cvt.rn.bf16x2.f32 $0, $2, $1": (2, {"int32", "uint32"}, "PACK({1}, {0})"),
}


def _names_inline_asm(unit: PythonFile) -> bool:
    return ASM.rsplit(".", 1)[1].encode() in unit.data


@rule(id="TRI003", lang="triton", severity="error", fix="safe", when=_names_inline_asm)
def inline_ptx(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    for call in src.find(unit.module, cst.Call):
        if src.call_name(call, names) != ASM:
            continue
        tl = src.dotted(call.func).rsplit(".", 1)[0]  # type: ignore[union-attr]
        start, end = unit.span(call)
        asm_arg = src.arg(call, "asm", 0)
        asm = _string(asm_arg.value) if asm_arg else None
        if asm is None:
            yield Hit(start, end, "inline asm built at run time: cannot tell what it does on gfx950",
                      detail=unit.code(call))
            continue
        text = _replacement(unit, call, asm, tl, names)
        if text is None:
            yield Hit(start, end, f"inline PTX has no Triton equivalent in the catalog: {asm.strip()!r}",
                      detail=asm)
        else:
            yield Hit(start, end, f"inline PTX {asm.strip()!r} -> {text}", edits=(Edit(start, end, text),))


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _normalize(asm: str) -> str:
    return " ".join(asm.replace(",", ", ").split()).replace(" ,", ",").rstrip(";").strip()


def _replacement(unit: PythonFile, call: cst.Call, asm: str, tl: str, names: dict[str, str]) -> str | None:
    entry = CATALOG.get(_normalize(asm))
    if entry is None or asm.count(";") > 1:
        return None
    nargs, dtypes, template = entry
    args_arg, dtype_arg, pack_arg = src.arg(call, "args", 2), src.arg(call, "dtype", 3), src.arg(call, "pack", 5)
    if args_arg is None or dtype_arg is None or pack_arg is None or src.int_value(pack_arg.value) != 1:
        return None
    if not isinstance(args_arg.value, (cst.List, cst.Tuple)):
        return None
    elems = args_arg.value.elements
    if len(elems) != nargs or any(isinstance(e, cst.StarredElement) for e in elems):
        return None
    dtype = (src.resolve(dtype_arg.value, names) or "").rsplit(".", 1)[-1]
    if dtype not in dtypes:
        return None
    ops = [_operand(unit, e.value) for e in elems]
    if template.startswith("PACK"):
        hi, lo = (ops[0], ops[1]) if template == "PACK({0}, {1})" else (ops[1], ops[0])
        half = "{x}.to({tl}.bfloat16).to({tl}.uint16, bitcast=True).to({tl}.uint32)"
        packed = f"(({half.format(x=hi, tl=tl)} << 16) | {half.format(x=lo, tl=tl)})"
        return packed if dtype == "uint32" else f"{packed}.to({tl}.int32, bitcast=True)"
    return template.format(*ops, tl=tl)


def _operand(unit: PythonFile, node: cst.BaseExpression) -> str:
    text = unit.code(node)
    return text if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"({text})"
