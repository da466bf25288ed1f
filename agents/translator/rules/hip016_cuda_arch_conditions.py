"""HIP016: `__CUDA_ARCH__` in `#if` / `#ifdef` conditions.

Why: nvcc defines `__CUDA_ARCH__` in the device pass only, to the SM it compiles for (700 for
sm_70), and CUDA code tests it two ways: "is this the device pass" (`#ifdef __CUDA_ARCH__`,
`defined(__CUDA_ARCH__)`) and "does the device have feature X" (`#if __CUDA_ARCH__ >= 700`).
HIP's device pass defines `__HIP_DEVICE_COMPILE__` and never `__CUDA_ARCH__` (clang D45441:
hip-clang leaves it undefined on purpose; HIPIFY 6.3 maps it to nothing), so in the port every
such test reads as the host pass: `#if __CUDA_ARCH__ >= 700` silently compiles the `#else`
branch into the kernels. cuda-samples warpAggregatedAtomicsCG keeps its kernels' bodies under
`#if __CUDA_ARCH__ >= 700` with an empty `#else`: its port built, computed nothing and printed
"CPU i=0 max = 2147483578 mismatches GPU max = 0" (H200, hip_on_cuda, 2026-12-01).
Device-pass tests become `__HIP_DEVICE_COMPILE__`. A comparison with a number is decided for
both passes: the host pass reads `__CUDA_ARCH__` as 0 as nvcc's does, the device pass as the SM
whose features HIP offers on the target (porter/hardware: `cuda_features_sm`, sm_70 for
gfx950), and the comparison becomes `defined(__HIP_DEVICE_COMPILE__)`, its negation, 1 or 0.
Other uses in a condition become `(defined(__HIP_DEVICE_COMPILE__) ? 700 : 0)`. Each rewrite
says which branch each pass now compiles; a device branch that holds inline PTX or features
HIP lacks (clusters, TMA, wgmma, cp.async, cuda::pipeline / cuda::barrier) is also reported,
unfixed, for the rules and the person who port them.

Before:
    #if __CUDA_ARCH__ >= 700
      atomicAggInc(p);
    #endif
    #ifdef __CUDA_ARCH__
      int lane = threadIdx.x % 32;
    #endif
After:
    #if defined(__HIP_DEVICE_COMPILE__) /* __CUDA_ARCH__ >= 700: gfx950 as sm_70 */
      atomicAggInc(p);
    #endif
    #ifdef __HIP_DEVICE_COMPILE__
      int lane = threadIdx.x % 32;
    #endif

Fix safety: safe for the device/host tests (the same passes as nvcc's); for feature levels, the
device pass takes the branch a build for sm_70 takes. A level above what HIP offers (`>= 800`,
`>= 900`) keeps the fallback, which is what the port can compile; a branch for an older SM
(`< 700`) is dropped in the device pass as on a Volta build. Uses outside conditions
(`printf("%d", __CUDA_ARCH__)`) are left for the reader and the compiler.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import hardware
from porter.rules import Hit, RuleContext, rule
from porter.state import Edit, Severity
from porter.syntax import SourceFile

NAME = "__CUDA_ARCH__"
DEVICE = "__HIP_DEVICE_COMPILE__"
_WANTED = re.compile(rb"#\s*(?:el)?if(?:n?def)?\b[^\n]*\b__CUDA_ARCH__\b")
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# What a device branch may hold that HIP on the target lacks: inline assembly (PTX), and sm_80 /
# sm_90 features HIP has no counterpart for (thread block clusters, TMA and bulk copies, wgmma,
# asynchronous copies and their pipelines / barriers).
_UNPORTABLE = re.compile(r"\basm\b|\b__asm__\b|\bthis_cluster\b|\bcluster_group\b|__cluster_dims__|\bwgmma\b|"
                         r"\bcp\.async|\bcuda::ptx\b|\bmemcpy_async\b|\bcuda::pipeline\b|\bcuda::barrier\b|"
                         r"\bcudaTensorMap|\bCUtensorMap\b")
_DIRECTIVES = "[(preproc_if) (preproc_elif) (preproc_ifdef)] @directive"


@rule(id="HIP016", lang="cuda", severity="warning", fix="safe",
      trigger=lambda data, ctx: bool(_WANTED.search(data)))
def cuda_arch_conditions(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    if not _WANTED.search(unit.data):
        return
    level = hardware.get(ctx.options.arch).cuda_features_sm
    arch_value = int(level.value) * 10 if level is not None else None
    for node in unit.captures(_DIRECTIVES):  # in source order, as a walk of the tree meets them
        edits: tuple[Edit, ...]
        device: bool | None
        host: bool | None
        note = ""
        if node.type == "preproc_ifdef":
            name = node.child_by_field_name("name")
            if name is None or unit.text(name) != NAME:
                continue
            negated = node.children[0].type == "#ifndef"
            edits = (Edit(start=name.start_byte, end=name.end_byte, text=DEVICE),)
            device, host = (not negated), negated
            original = f"#{'ifndef' if negated else 'ifdef'} {NAME}"
            end = name.end_byte
        else:
            condition = node.child_by_field_name("condition")
            if condition is None or not any(unit.text(n) == NAME for n in _identifiers(condition, True)):
                continue
            if arch_value is None:
                yield Hit(condition.start_byte, condition.end_byte,
                          f"`{unit.text(condition)}` tests {NAME}, which HIP never defines, and "
                          f"{ctx.options.arch} has no stated CUDA feature level in porter/hardware",
                          severity=Severity.error)
                continue
            edits = tuple(_rewrite(unit, condition, arch_value, ctx.options.arch))
            device = _value(unit, condition, arch_value, True)
            host = _value(unit, condition, arch_value, False)
            original = f"#{'elif' if node.type == 'preproc_elif' else 'if'} {' '.join(unit.text(condition).split())}"
            end = condition.end_byte
            note = f" ({ctx.options.arch} read as sm_{arch_value // 10}, porter/hardware cuda_features_sm)"
        line = unit.line_col(node.start_byte)[0]
        yield Hit(node.start_byte, end,
                  f"`{original}`: HIP defines no {NAME}, so the port compiled the host branch in the device "
                  f"pass; now the device pass {_taken(device, line)} and the host pass {_taken(host, line)}{note}",
                  edits)
        if device:
            offset, body = _branch(unit, node)
            found = _UNPORTABLE.search(body)
            if found:
                at = offset + len(body[:found.start()].encode())
                yield Hit(at, at + len(found.group(0).encode()),
                          f"`{original}`: the branch the {ctx.options.arch} device pass now compiles (line {line}) "
                          f"uses `{found.group(0)}`: inline PTX, or a feature HIP on {ctx.options.arch} lacks; "
                          f"port it (the PTX rules) or guard it", severity=Severity.error)


def _taken(value: bool | None, line: int) -> str:
    if value is None:
        return f"leaves the branch of line {line} to the other macros of the condition"
    return f"takes the branch of line {line}" if value else f"skips the branch of line {line}"


def _identifiers(node, under_defined: bool) -> Iterator:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "preproc_defined" and not under_defined:
            continue
        if n.type == "identifier":
            yield n
        stack.extend(reversed(n.children))


def _number(unit: SourceFile, node) -> int | None:
    if node.type != "number_literal":
        return None
    text = unit.text(node).rstrip("uUlL")
    try:
        return int(text, 0)
    except ValueError:
        return None


def _comparison(unit: SourceFile, node) -> tuple[str, int] | None:
    """(op, number) of `__CUDA_ARCH__ op number`, the number on either side (the op turned so)."""
    if node.type != "binary_expression":
        return None
    left, op, right = (node.child_by_field_name(f) for f in ("left", "operator", "right"))
    if left is None or op is None or right is None or unit.text(op) not in _COMPARE:
        return None
    if left.type == "identifier" and unit.text(left) == NAME:
        number = _number(unit, right)
        return None if number is None else (unit.text(op), number)
    if right.type == "identifier" and unit.text(right) == NAME:
        number = _number(unit, left)
        return None if number is None else (_MIRROR[unit.text(op)], number)
    return None


def _rewrite(unit: SourceFile, condition, arch_value: int, arch: str) -> Iterator[Edit]:
    stack = [condition]
    while stack:
        n = stack.pop()
        if n.type == "preproc_defined":
            for ident in _identifiers(n, True):
                if unit.text(ident) == NAME:
                    yield Edit(start=ident.start_byte, end=ident.end_byte, text=DEVICE)
            continue
        compared = _comparison(unit, n)
        if compared is not None:
            op, number = compared
            device, host = _COMPARE[op](arch_value, number), _COMPARE[op](0, number)
            text = {(True, True): "1", (False, False): "0", (True, False): f"defined({DEVICE})",
                    (False, True): f"!defined({DEVICE})"}[(device, host)]
            note = f"/* {' '.join(unit.text(n).split())}: {arch} as sm_{arch_value // 10} */"
            yield Edit(start=n.start_byte, end=n.end_byte, text=f"{text} {note}")
            continue
        if n.type == "identifier" and unit.text(n) == NAME:
            text = f"defined({DEVICE})" if n == condition else f"(defined({DEVICE}) ? {arch_value} : 0)"
            yield Edit(start=n.start_byte, end=n.end_byte, text=text)
            continue
        stack.extend(reversed(n.children))


def _value(unit: SourceFile, node, arch_value: int, device: bool) -> bool | None:
    """The condition's truth in one pass as nvcc would compile it for sm_(arch_value / 10), or None
    when other macros decide it."""
    result = _eval(unit, node, arch_value if device else None)
    return None if result is None else bool(result)


def _eval(unit: SourceFile, n, arch: int | None) -> int | None:
    t = n.type
    if t == "number_literal":
        return _number(unit, n)
    if t == "identifier":
        return (arch or 0) if unit.text(n) == NAME else None
    if t == "preproc_defined":
        return int(arch is not None) if [unit.text(i) for i in _identifiers(n, True)] == [NAME] else None
    if t == "parenthesized_expression":
        inner = [c for c in n.children if c.type not in ("(", ")")]
        return _eval(unit, inner[0], arch) if len(inner) == 1 else None
    if t == "unary_expression":
        op, arg = n.child_by_field_name("operator"), n.child_by_field_name("argument")
        v = _eval(unit, arg, arch) if op is not None and arg is not None else None
        return None if v is None else {"!": int(not v), "-": -v, "+": v, "~": ~v}.get(unit.text(op))
    if t == "binary_expression":
        return _eval_binary(unit, n, arch)
    return None


def _eval_binary(unit: SourceFile, n, arch: int | None) -> int | None:
    op_node, left, right = (n.child_by_field_name(f) for f in ("operator", "left", "right"))
    if op_node is None or left is None or right is None:
        return None
    op = unit.text(op_node)
    a, b = _eval(unit, left, arch), _eval(unit, right, arch)
    if op == "&&":  # 0 decides whatever the other side is
        return 0 if 0 in (a, b) else (None if None in (a, b) else 1)
    if op == "||":
        return 1 if (a not in (0, None)) or (b not in (0, None)) else (None if None in (a, b) else 0)
    if a is None or b is None:
        return None
    if op in _COMPARE:
        return int(_COMPARE[op](a, b))
    arithmetic = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}
    if op in arithmetic:
        return arithmetic[op]
    if op in ("/", "%") and b != 0:
        return a // b if op == "/" else a % b
    return None


def _branch(unit: SourceFile, node) -> tuple[int, str]:
    """The text a true condition of `node` compiles: from the condition to its #elif / #else / #endif."""
    head = node.child_by_field_name("condition") or node.child_by_field_name("name")
    start = head.end_byte if head is not None else node.start_byte
    end = node.end_byte
    alternative = node.child_by_field_name("alternative")
    if alternative is not None:
        end = alternative.start_byte
    else:
        for child in node.children:
            if child.type == "#endif":
                end = child.start_byte
    return start, unit.data[start:end].decode("utf-8", "replace")
