"""TRI005: NVIDIA target checks that misread an AMD GPU.

Why: PyTorch on ROCm answers the CUDA questions with AMD facts. `torch.cuda.get_device_capability()`
returns the gfx version, (9, 5) on gfx950 and (9, 4) on gfx942, so `capability[0] >= 9` (meant as
"Hopper: use TMA / wgmma") is true on an MI350X and sends it down the sm_90 path.
`torch.version.cuda` is None on ROCm, so `if torch.version.cuda:` (meant as "a GPU build") drops
the GPU path; `get_current_target().backend == "cuda"` (the `is_cuda()` helper) is false on HIP.
Each check gains its HIP branch: capability checks hold on CUDA builds only, the GPU-build and
backend checks accept HIP too.

Before:
    if torch.version.cuda and torch.cuda.get_device_capability()[0] >= 9:
    return triton.runtime.driver.active.get_current_target().backend == "cuda"
After:
    if (torch.version.cuda or torch.version.hip) and (torch.version.hip is None and torch.cuda.get_device_capability()[0] >= 9):
    return triton.runtime.driver.active.get_current_target().backend in ("cuda", "hip")

Fix safety: safe where the file has no HIP branch of its own: the rewritten checks keep every
NVIDIA answer and give the AMD one the portable path. A file that already tests for "hip"
(`is_hip()`, torch.version.hip) is reported, not rewritten; so is a capability read into
variables (`major, minor = get_device_capability()`), which needs a look at its uses.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity

CAPABILITY = "torch.cuda.get_device_capability"


def _checks_target(unit: PythonFile) -> bool:
    data = unit.data
    if b"get_current_target" in data:  # the backend comparison reads the call's own spelling
        return True
    if b"get_device_capability" not in data and not (b"version" in data and b"cuda" in data):
        return False
    facts = unit.facts
    return facts is None or (CAPABILITY in facts.calls or "torch.version.cuda" in facts.dotted)


@rule(id="TRI005", lang="triton", severity="warning", fix="safe", when=_checks_target)
def target_checks(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:  # noqa: C901 - one branch per NVIDIA target check; legacy, over the limit when ruff came in
    names = src.aliases(unit.module)
    if not ({"torch", "triton"} & {v.split(".")[0] for v in names.values()}):
        return
    parents = src.parents(unit.module)
    torch = src.local_name(names, "torch", "torch")
    knows_hip = _knows_hip(unit, names)
    hip_none = f"{torch}.version.hip is None"

    for call in src.find(unit.module, cst.Call):
        if src.call_name(call, names) != CAPABILITY:
            continue
        node: cst.CSTNode = call
        while isinstance(parents.get(node), (cst.Subscript, cst.Attribute)):
            node = parents[node]
        cmp = parents.get(node)
        start, end = unit.span(call)
        if not isinstance(cmp, cst.Comparison):
            yield Hit(start, end, "get_device_capability() is (9, 5) on gfx950: check how its value is used",
                      severity=Severity.warning)
            continue
        if _guarded(cmp, parents, unit):
            continue
        if knows_hip:
            s, e = unit.span(cmp)
            yield Hit(s, e, "capability check is true on gfx950 ((9, 5)); the file has its own HIP branch: check it",
                      severity=Severity.warning)
            continue
        s, e = unit.span(cmp)
        text = f"({hip_none} and {unit.code(cmp)})"
        yield Hit(s, e, f"capability check is true on gfx950 ((9, 5)): {text}", edits=(Edit(s, e, text),))

    for cmp in src.find(unit.module, cst.Comparison):
        if len(cmp.comparisons) != 1 or not _is_backend(cmp.left):
            continue
        target = cmp.comparisons[0]
        if not (isinstance(target.comparator, cst.SimpleString) and target.comparator.evaluated_value == "cuda"):
            continue
        op = {cst.Equal: "in", cst.NotEqual: "not in"}.get(type(target.operator))
        if op is None:
            continue
        s, e = unit.span(cmp)
        if knows_hip:
            yield Hit(s, e, 'backend == "cuda" is false on HIP; the file has its own HIP branch',
                      severity=Severity.info)
            continue
        text = f'{unit.code(cmp.left)} {op} ("cuda", "hip")'
        yield Hit(s, e, f'backend check misses HIP: {text}', edits=(Edit(s, e, text),))

    for attr in src.find(unit.module, cst.Attribute):
        if src.resolve(attr, names) != "torch.version.cuda" or not _boolean_use(attr, parents):
            continue
        s, e = unit.span(attr)
        if knows_hip:
            continue
        text = f"({unit.code(attr)} or {torch}.version.hip)"
        yield Hit(s, e, f"torch.version.cuda is None on ROCm: {text}", edits=(Edit(s, e, text),))


def _is_backend(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "backend" and isinstance(node.value, cst.Call) \
        and isinstance(node.value.func, cst.Attribute) and node.value.func.attr.value == "get_current_target"


def _knows_hip(unit: PythonFile, names: dict[str, str]) -> bool:
    """The file tests for HIP already (its own branch): is_hip(), backend == "hip", torch.version.hip."""
    if "knows_hip" not in unit.memo:
        found = any(isinstance(s.evaluated_value, str) and s.evaluated_value == "hip"
                    for s in src.find(unit.module, cst.SimpleString))
        found = found or any(src.resolve(a, names) == "torch.version.hip" for a in src.find(unit.module, cst.Attribute))
        unit.memo["knows_hip"] = found
    return bool(unit.memo["knows_hip"])


def _guarded(cmp: cst.Comparison, parents, unit: PythonFile) -> bool:
    """Already `torch.version.hip is None and <cmp>` (this rule's own rewrite)."""
    node: cst.CSTNode = cmp
    while isinstance(parents.get(node), cst.BooleanOperation):
        op = parents[node]
        if isinstance(op.operator, cst.And) and "version.hip is None" in unit.code(op.left):
            return True
        node = op
    return False


def _boolean_use(attr: cst.Attribute, parents) -> bool:
    """`torch.version.cuda` used as a truth value or tested against None, and not yet `or torch.version.hip`."""
    parent = parents.get(attr)
    if isinstance(parent, cst.BooleanOperation):
        other = parent.right if parent.left is attr else parent.left
        if isinstance(parent.operator, cst.Or) and isinstance(other, cst.Attribute) and other.attr.value == "hip":
            return False
        return True
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)):
        return parent.test is attr
    if isinstance(parent, cst.UnaryOperation):
        return isinstance(parent.operator, cst.Not)
    if isinstance(parent, cst.Comparison) and parent.left is attr and len(parent.comparisons) == 1:
        c = parent.comparisons[0]
        return isinstance(c.operator, (cst.Is, cst.IsNot)) and isinstance(c.comparator, cst.Name) \
            and c.comparator.value == "None"
    return False
