"""BLD001: CUDA enabled as a CMake language.

Why: CMake drives ROCm's clang through its HIP language (added in CMake 3.21; see the CMake docs,
`enable_language` and `CMAKE_HIP_ARCHITECTURES`), not through CUDA. Enabling HIP is not enough for
the kept `.cu` files: CMake picks a source's language by extension and only `.hip` is HIP
(`CMAKE_HIP_SOURCE_FILE_EXTENSIONS`), so each `.cu` source gets the `LANGUAGE HIP` source property.
That property is directory-scoped, so `set_source_files_properties` works before or after the
target in the same CMakeLists.txt; ROCm's own guide ("Using CMake", ROCm 6.3) uses the same idiom.
`cmake_minimum_required` is raised to 3.21 where it was lower.

Before:
    cmake_minimum_required(VERSION 3.18)
    project(saxpy LANGUAGES CXX CUDA)
    add_executable(saxpy main.cpp saxpy.cu)
After:
    cmake_minimum_required(VERSION 3.21)
    project(saxpy LANGUAGES CXX HIP)
    add_executable(saxpy main.cpp saxpy.cu)
    set_source_files_properties(saxpy.cu PROPERTIES LANGUAGE HIP)

Fix safety: safe. Sources that reach a target through a variable are marked where the variable is
set (`set`, `list(APPEND)`, or a `file(GLOB)` of `*.cu` only); a glob that mixes `.cu` with other
sources is reported, not changed, because marking it would compile the C++ files as HIP too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import argument_value, arguments, cmake_tree, commands, line_indent
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

HIP_MIN_CMAKE = (3, 21)
_LANGUAGE_COMMANDS = ("project", "enable_language", "check_language")
_SOURCE_COMMANDS = ("add_executable", "add_library", "target_sources", "set", "list")
_CU = re.compile(r"\.cu\"?$")


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode()


@rule(id="BLD001", lang="cmake", severity="info", fix="safe")
def cuda_language(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    cmds = list(commands(cmake_tree(data)))
    covered = _hip_sources(data, cmds)
    enables_cuda = False
    for name, cmd in cmds:
        args = arguments(cmd)
        if name in _LANGUAGE_COMMANDS:
            # project(<name> ...) names the project first; a project may itself be called CUDA
            for arg in args[1:] if name == "project" else args:
                if _text(data, arg) == "CUDA":
                    enables_cuda = True
                    yield Hit(arg.start_byte, arg.end_byte,
                              f"{name}: CUDA language -> HIP: CMake >= 3.21 compiles for AMD GPUs as the HIP language",
                              (Edit(start=arg.start_byte, end=arg.end_byte, text="HIP"),))
        elif name in _SOURCE_COMMANDS and not cmd.has_error:  # an unclosed call has no end to add after
            new = [t for t in (_text(data, a) for a in args) if _CU.search(t) and t not in covered]
            if new:
                covered.update(new)
                line = f"set_source_files_properties({' '.join(new)} PROPERTIES LANGUAGE HIP)"
                yield Hit(cmd.start_byte, cmd.end_byte,
                          f"{', '.join(new)} compile as HIP: CMake maps only .hip to the HIP language by extension",
                          (Edit(start=cmd.end_byte, end=cmd.end_byte,
                                text=f"\n{line_indent(data, cmd.start_byte)}{line}"),))
        elif name == "file":
            yield from _glob(data, cmd, args, covered)
    if enables_cuda:
        yield from _minimum_version(data, cmds)


def _hip_sources(data: bytes, cmds) -> set[str]:
    """Sources already given LANGUAGE HIP by a set_source_files_properties in this file."""
    covered: set[str] = set()
    for name, cmd in cmds:
        texts = [_text(data, a) for a in arguments(cmd)]
        if name == "set_source_files_properties" and "PROPERTIES" in texts:
            props = texts[texts.index("PROPERTIES") + 1:]
            if any(k == "LANGUAGE" and v.strip('"') == "HIP" for k, v in zip(props, props[1:])):
                covered.update(texts[:texts.index("PROPERTIES")])
    return covered


def _glob(data: bytes, cmd, args, covered: set[str]) -> Iterator[Hit]:
    texts = [_text(data, a) for a in args]
    if len(texts) < 3 or texts[0] not in ("GLOB", "GLOB_RECURSE"):
        return
    patterns = [t for t in texts[2:] if t not in ("LIST_DIRECTORIES", "RELATIVE", "CONFIGURE_DEPENDS",
                                                  "FOLLOW_SYMLINKS", "true", "false")]
    cu = [p for p in patterns if _CU.search(p)]
    ref = f"${{{texts[1]}}}"
    if not cu or ref in covered:
        return
    if len(cu) == len(patterns):
        covered.add(ref)
        yield Hit(cmd.start_byte, cmd.end_byte,
                  f"globbed {', '.join(cu)} sources compile as HIP: CMake maps only .hip to HIP by extension",
                  (Edit(start=cmd.end_byte, end=cmd.end_byte, text=f"\n{line_indent(data, cmd.start_byte)}"
                        f"set_source_files_properties({ref} PROPERTIES LANGUAGE HIP)"),))
    else:
        yield Hit(cmd.start_byte, cmd.end_byte,
                  f"{texts[1]} globs .cu and other sources together: give the .cu files LANGUAGE HIP "
                  "(set_source_files_properties) without marking the C++ ones", severity=Severity.warning)


def _minimum_version(data: bytes, cmds) -> Iterator[Hit]:
    for name, cmd in cmds:
        if name != "cmake_minimum_required":
            continue
        args = arguments(cmd)
        texts = [_text(data, a) for a in args]
        if "VERSION" not in texts or texts.index("VERSION") + 1 >= len(texts):
            return
        arg = args[texts.index("VERSION") + 1]
        start, end = argument_value(arg)
        low, _, high = data[start:end].decode().partition("...")
        if _version(low) >= HIP_MIN_CMAKE:
            return
        keep_high = bool(high) and _version(high) >= HIP_MIN_CMAKE
        new = "3.21" + (f"...{high}" if keep_high else "")
        yield Hit(arg.start_byte, arg.end_byte,
                  f"cmake_minimum_required {low} -> 3.21: the HIP language needs CMake 3.21",
                  (Edit(start=start, end=end, text=new),))
        return


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])
