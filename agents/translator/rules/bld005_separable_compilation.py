"""BLD005: CUDA separable compilation in CMake.

Why: `CUDA_SEPARABLE_COMPILATION` (and its default, `CMAKE_CUDA_SEPARABLE_COMPILATION`) makes
CMake compile with `-rdc=true` and add a device-link step. CMake has no HIP counterpart (CMake
issue 23210, open): relocatable device code for HIP is clang's `-fgpu-rdc` on every compile, and
`-fgpu-rdc --hip-link` on the link so that clang links the device code (ROCm/hip issue 2154).
The property is replaced by those options, scoped to HIP with generator expressions so that
C++-only targets and g++ links are untouched.

Before:
    set_target_properties(solver PROPERTIES CUDA_SEPARABLE_COMPILATION ON POSITION_INDEPENDENT_CODE ON)
After:
    set_target_properties(solver PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_compile_options(solver PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
    target_link_options(solver PRIVATE "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")

Fix safety: safe. An OFF value is simply dropped (whole-program device code is clang's default);
`set_property(... CUDA_SEPARABLE_COMPILATION ...)` and values held in variables are reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import arguments, cmake_tree, commands, line_indent
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

_COMPILE = "$<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>"
_LINK = '"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>"'
_ON = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_OFF = frozenset({"OFF", "FALSE", "NO", "N", "0", ""})
_WHY = "CUDA separable compilation -> -fgpu-rdc: CMake has no HIP_SEPARABLE_COMPILATION; clang needs -fgpu-rdc " \
       "to compile and -fgpu-rdc --hip-link to link relocatable device code"


@rule(id="BLD005", lang="cmake", severity="info", fix="safe")
def separable_compilation(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    for name, cmd in commands(cmake_tree(data)):
        args = arguments(cmd)
        texts = [data[a.start_byte:a.end_byte].decode() for a in args]
        indent = "\n" + line_indent(data, cmd.start_byte)
        if name == "set" and texts[:1] == ["CMAKE_CUDA_SEPARABLE_COMPILATION"]:
            value = texts[1].strip('"').upper() if len(texts) > 1 else ""
            if value in _ON:
                new = f"add_compile_options({_COMPILE}){indent}add_link_options({_LINK})"
            elif value in _OFF:
                new = ""
            else:
                yield Hit(cmd.start_byte, cmd.end_byte, f"{_WHY} (value {texts[1]} left for a person)",
                          severity=Severity.warning)
                continue
            yield Hit(cmd.start_byte, cmd.end_byte, _WHY, (Edit(start=cmd.start_byte, end=cmd.end_byte, text=new),))
        elif name == "set_target_properties" and "PROPERTIES" in texts:
            yield from _target_properties(cmd, args, texts, indent)
        elif name == "set_property" and "CUDA_SEPARABLE_COMPILATION" in texts:
            yield Hit(cmd.start_byte, cmd.end_byte, f"{_WHY}: replace this set_property by hand",
                      severity=Severity.warning)


def _target_properties(cmd, args, texts: list[str], indent: str) -> Iterator[Hit]:
    p = texts.index("PROPERTIES")
    targets = texts[:p]
    pairs = list(range(p + 1, len(texts) - 1, 2))  # index of each property name
    rdc = [k for k in pairs if texts[k] == "CUDA_SEPARABLE_COMPILATION"]
    if not rdc:
        return
    k = rdc[0]
    value = texts[k + 1].strip('"').upper()
    if value not in _ON | _OFF:
        yield Hit(args[k].start_byte, args[k + 1].end_byte, f"{_WHY} (value {texts[k + 1]} left for a person)",
                  severity=Severity.warning)
        return
    added = "".join(f"{indent}target_compile_options({t} PRIVATE {_COMPILE}){indent}target_link_options({t} "
                    f"PRIVATE {_LINK})" for t in targets) if value in _ON else ""
    if len(pairs) == 1:  # the only property: the command goes, the options take its place
        yield Hit(cmd.start_byte, cmd.end_byte, _WHY, (Edit(start=cmd.start_byte, end=cmd.end_byte,
                                                            text=added.removeprefix(indent)),))
        return
    edits = [Edit(start=args[k - 1].end_byte, end=args[k + 1].end_byte, text="")]
    if added:
        edits.append(Edit(start=cmd.end_byte, end=cmd.end_byte, text=added))
    yield Hit(args[k].start_byte, args[k + 1].end_byte, _WHY, tuple(edits))
