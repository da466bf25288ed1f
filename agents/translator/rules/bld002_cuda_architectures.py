"""BLD002: CUDA architectures in CMake.

Why: `CMAKE_CUDA_ARCHITECTURES` and the `CUDA_ARCHITECTURES` target property name NVIDIA SM
versions (80, 90a, 90-real) and are ignored by HIP targets. Their HIP counterparts,
`CMAKE_HIP_ARCHITECTURES` and `HIP_ARCHITECTURES` (CMake 3.21+), take AMD names; without them
CMake uses whatever `rocm_agent_enumerator` reports on the build machine, which on a CPU-only CI
box is the compiler default, not gfx950. A single architecture becomes gfx950; a list keeps its
shape and becomes gfx950;gfx942 (MI350X and MI300X).

Before:
    set(CMAKE_CUDA_ARCHITECTURES "80;90")
    set_target_properties(gemm PROPERTIES CUDA_ARCHITECTURES 90)
After:
    set(CMAKE_HIP_ARCHITECTURES "gfx950;gfx942")
    set_target_properties(gemm PROPERTIES HIP_ARCHITECTURES gfx950)

Fix safety: safe: the values are SM numbers that mean nothing to the HIP compiler. Values held in
other variables (`${MY_ARCHS}`) are renamed with the property but reported, not rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import arch_list, argument_value, arguments, cmake_tree, commands
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

_NAMES = {"CMAKE_CUDA_ARCHITECTURES": "CMAKE_HIP_ARCHITECTURES", "CUDA_ARCHITECTURES": "HIP_ARCHITECTURES"}
_NAME_REF = re.compile(rb"\b(CMAKE_CUDA_ARCHITECTURES|CUDA_ARCHITECTURES)\b")
_VAR_REF = re.compile(rb"\$\{(CMAKE_CUDA_ARCHITECTURES)\}")
_SM = re.compile(r"^(?:sm_|compute_)?\d+[a-z]?(?:-real|-virtual)?$|^(?:all|all-major|native)$")
# A value list ends at a keyword of set()/set_property().
_KEYWORDS = frozenset({"CACHE", "PARENT_SCOPE", "PROPERTIES", "PROPERTY", "APPEND", "APPEND_STRING"})


@rule(id="BLD002", lang="cmake", severity="info", fix="safe")
def cuda_architectures(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    for name, cmd in commands(cmake_tree(data)):
        args = arguments(cmd)
        for i, arg in enumerate(args):
            start, end = argument_value(arg)
            # in a message only ${...} references are the variable; other words are prose
            for m in (_VAR_REF if name == "message" else _NAME_REF).finditer(data, start, end):
                old = m.group(1).decode()
                yield Hit(m.start(1), m.end(1),
                          f"{old} -> {_NAMES[old]}: HIP targets read the HIP property (CMake 3.21)",
                          (Edit(start=m.start(1), end=m.end(1), text=_NAMES[old]),))
            text = data[start:end].decode()
            if text in _NAMES and name in ("set", "set_target_properties", "set_property"):
                # set_target_properties takes one value per property; set/set_property take a list
                rest = args[i + 1:i + 2] if name == "set_target_properties" else args[i + 1:]
                yield from _values(data, rest, ctx.options.arch)


def _values(data: bytes, args, arch: str) -> Iterator[Hit]:
    """Rewrite the SM list that follows an architecture property name."""
    values = []
    for arg in args:
        start, end = argument_value(arg)
        text = data[start:end].decode()
        if text in _KEYWORDS or text in _NAMES or not text:
            break
        values.append((arg, start, end, text))
    entries = [(a, s, e, t) for a, s, e, t in values if all(_SM.match(p) for p in t.split(";"))]
    for arg, *_rest, text in values:
        if not any(arg is a for a, *_ in entries):
            yield Hit(arg.start_byte, arg.end_byte,
                      f"architecture list {text} is not SM numbers: set it to gfx950 (MI350X) by hand",
                      severity=Severity.warning)
    if not entries:
        return
    count = sum(len(t.split(";")) for *_rest, t in entries)
    targets = arch_list(arch, count)
    if len(entries) == 1:  # one argument, maybe "80;90": keep the ;-list inside it
        arg, start, end, text = entries[0]
        yield Hit(arg.start_byte, arg.end_byte, f"architectures {text} -> {';'.join(targets)}: MI350X is gfx950"
                  + (", MI300X is gfx942" if len(targets) > 1 else ""),
                  (Edit(start=start, end=end, text=";".join(targets)),))
        return
    for k, (arg, start, end, text) in enumerate(entries):  # one SM per argument: one target per argument
        if k < len(targets):
            yield Hit(arg.start_byte, arg.end_byte, f"architecture {text} -> {targets[k]}",
                      (Edit(start=start, end=end, text=targets[k]),))
        else:
            prev = entries[k - 1][0]
            yield Hit(arg.start_byte, arg.end_byte, f"architecture {text} dropped: the port targets "
                      f"{', '.join(targets)}", (Edit(start=prev.end_byte, end=arg.end_byte, text=""),))
