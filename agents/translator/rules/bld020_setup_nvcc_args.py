"""BLD020: nvcc arguments of a PyTorch CUDAExtension.

Why: on ROCm builds of PyTorch, `CUDAExtension` and `BuildExtension` stay as they are: they
hipify the sources on the fly and compile them with hipcc (torch.utils.cpp_extension, "ROCm
support"), passing `extra_compile_args["nvcc"]` to hipcc. Those arguments are still nvcc's, which
clang rejects; so `-gencode=arch=compute_90,code=sm_90` -> `--offload-arch=gfx950`,
`--use_fast_math` -> `-ffast-math`, `--expt-relaxed-constexpr` dropped (clang's default), and
`-U__CUDA_NO_HALF_OPERATORS__` -> `-U__HIP_NO_HALF_OPERATORS__`, because ROCm's cpp_extension
defines the __HIP_NO_HALF_* macros where CUDA's defines the __CUDA_NO_HALF_* ones.

Before:
    ext = CUDAExtension("fused", ["fused.cu"],
                        extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math",
                                            "-U__CUDA_NO_HALF_OPERATORS__", "-gencode=arch=compute_90,code=sm_90"]})
After:
    ext = CUDAExtension("fused", ["fused.cu"],
                        extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "-ffast-math",
                                            "-U__HIP_NO_HALF_OPERATORS__", "--offload-arch=gfx950"]})

Fix safety: safe for string literals in the list, in lists joined to it with `+`, and in lists a
name it uses is assigned, `+=`-ed or `.extend`-ed with. Each CUDAExtension gets an info finding saying it is kept.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter.agents.translator.buildfiles import FlagChange, SetupPy, nvcc_arch_changes, nvcc_flag_changes, setup_py
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

# torch.utils.cpp_extension: COMMON_NVCC_FLAGS define __CUDA_NO_HALF*, COMMON_HIP_FLAGS __HIP_NO_HALF*.
_MACROS = {f"-U__CUDA_NO_{m}__": f"-U__HIP_NO_{m}__" for m in ("HALF_OPERATORS", "HALF_CONVERSIONS", "HALF2_OPERATORS")}


@rule(id="BLD020", lang="setup_py", severity="info", fix="safe")
def setup_nvcc_args(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    tree = setup_py(unit.data)
    if tree is None:
        return
    for call in sorted(tree.nodes(cst.Call), key=lambda n: tree.span(n)[0]):
        if isinstance(call.func, cst.Name) and call.func.value == "CUDAExtension":
            start, end = tree.span(call.func)
            yield Hit(start, end, "CUDAExtension kept: ROCm PyTorch hipifies its sources and builds them with "
                      "hipcc, passing extra_compile_args['nvcc'] to hipcc")
    for lst in _nvcc_lists(tree):
        yield from _list_hits(tree, lst, ctx.options.arch)


def _nvcc_lists(tree: SetupPy) -> list[cst.List]:
    """The list literals that feed extra_compile_args["nvcc"] (or dict(nvcc=...))."""
    values: list[cst.BaseExpression] = []
    for d in tree.nodes(cst.Dict):
        for el in d.elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) \
                    and el.key.evaluated_value == "nvcc":
                values.append(el.value)
    for call in tree.nodes(cst.Call):
        if isinstance(call.func, cst.Name) and call.func.value == "dict":
            values += [a.value for a in call.args if a.keyword is not None and a.keyword.value == "nvcc"]
    values = [part for v in values for part in _operands(v)]
    names = {v.value for v in values if isinstance(v, cst.Name)}
    lists = [v for v in values if isinstance(v, cst.List)]
    for node in tree.spans:
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.List) \
                and isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value in names:
            lists.append(node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) \
                and node.target.value in names and isinstance(node.value, cst.List):
            lists.append(node.value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "extend" \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in names \
                and node.args and isinstance(node.args[0].value, cst.List):
            lists.append(node.args[0].value)
    return sorted(lists, key=lambda n: tree.span(n)[0])


def _operands(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of `nvcc_flags + ["-lineinfo"]`; an expression that is not a sum is its own part."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return [*_operands(expr.left), *_operands(expr.right)]
    return [expr]


def _list_hits(tree: SetupPy, lst: cst.List, arch: str) -> Iterator[Hit]:
    els = list(lst.elements)
    texts = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else "" for e in els]
    changes = [*nvcc_flag_changes(texts), *nvcc_arch_changes(texts, arch)]
    changes += [FlagChange(i, 1, (_MACROS[t],), f"{t} -> {_MACROS[t]}: ROCm's cpp_extension defines the "
                           "__HIP_NO_HALF_* macros") for i, t in enumerate(texts) if t in _MACROS]
    merged: list[FlagChange] = []
    for c in sorted(changes, key=lambda c: c.first):  # neighbouring drops become one edit
        p = merged[-1] if merged else None
        if p and c.fix and p.fix and not c.new and not p.new and p.first + p.count == c.first:
            merged[-1] = FlagChange(p.first, p.count + c.count, (), f"{p.why}; {c.why}",
                                    Severity.warning if Severity.warning in (p.severity, c.severity) else Severity.info)
        else:
            merged.append(c)
    for c in merged:
        first, last = els[c.first].value, els[c.first + c.count - 1].value
        start, end = tree.span(first)[0], tree.span(last)[1]
        sev = None if c.severity == Severity.info else c.severity
        if not c.fix:
            yield Hit(start, end, c.why, severity=sev)
            continue
        if c.new:
            q = first.quote if isinstance(first, cst.SimpleString) else '"'
            edit = Edit(start=start, end=end, text=", ".join(f"{q}{t}{q}" for t in c.new))
        elif c.first > 0:  # the element goes with the comma and blank before it
            edit = Edit(start=tree.span(els[c.first - 1].value)[1], end=end, text="")
        elif c.first + c.count < len(els):
            edit = Edit(start=start, end=tree.span(els[c.first + c.count].value)[0], text="")
        else:
            edit = Edit(start=tree.span(lst.lbracket)[1], end=tree.span(lst.rbracket)[0], text="")
        yield Hit(start, end, c.why, (edit,), sev)
