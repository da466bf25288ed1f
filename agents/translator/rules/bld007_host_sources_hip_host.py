"""BLD007: C++ sources of a CUDA target link the HIP runtime through hip::host.

Why: CMake's CUDA language gave every target with `.cu` sources the CUDA runtime, and the project's
`.cpp` files reached `cuda_runtime.h` through `${CUDAToolkit_INCLUDE_DIRS}`. In the port those `.cpp`
files include `hip/hip_runtime.h` and are still compiled by the host C++ compiler (CXX language),
which gets neither HIP's include directory nor `__HIP_PLATFORM_AMD__` (hip_runtime.h stops with
"Must define exactly one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__"), and the HIP
language links the runtime only for HIP sources. ROCm's `hip` package exports `hip::host` for
host code that calls the runtime ("Using CMake", ROCm 6.3: "hip::host" carries the include
directory, the platform definition and libamdhip64); AMD's rocm-examples link it to every
target whose C++ files call HIP (`target_link_libraries(app PRIVATE hip::host)`). Each target of
a CUDA-enabled CMakeLists.txt that has C/C++ sources next to its `.cu` ones (or whose sources come
through a variable, or that names `${CUDAToolkit_INCLUDE_DIRS}`) links `hip::host`, in the
signature its other `target_link_libraries` calls use; `find_package(hip REQUIRED)` is added
after `project()` when nothing else finds the package (BLD003 turns `find_package(CUDAToolkit)`
into it).

Before:
    project(sort LANGUAGES CXX CUDA)
    add_executable(sort sort.cu main.cpp)
After:
    project(sort LANGUAGES CXX CUDA)
    find_package(hip REQUIRED)
    add_executable(sort sort.cu main.cpp)
    target_link_libraries(sort PRIVATE hip::host)

Fix safety: safe: linking hip::host adds the runtime's include directory, definition and library,
which the target's host code had from the CUDA toolkit. Targets whose sources are all `.cu` (HIP
language, linked by CMake's HIP support) and targets that already link the runtime (`hip::host`,
or `CUDA::cudart`, which BLD003 maps to it) are left alone; IMPORTED, ALIAS and INTERFACE libraries
have no sources to build.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import arguments, cmake_tree, commands, line_indent
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit

_TARGET_COMMANDS = ("add_executable", "add_library")
_LIB_KINDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE"})
_NO_SOURCES = frozenset({"IMPORTED", "ALIAS", "INTERFACE"})
_HOST = re.compile(r"\.(cpp|cc|cxx|c\+\+|C|c)\"?$")
_CU = re.compile(r"\.cu\"?$")
_KEYWORDS = frozenset({"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PRIVATE", "LINK_PUBLIC", "LINK_INTERFACE_LIBRARIES"})
# What already brings the runtime: ROCm's target, or a CUDA:: runtime target BLD003 maps to it.
_RUNTIME = re.compile(r"^(hip::host|hip::amdhip64|hip::device|CUDA::(cudart|cudart_static|cuda_driver))$")
_TOOLKIT_INCLUDES = re.compile(r"\$\{(CUDAToolkit_INCLUDE_DIRS|CUDA_INCLUDE_DIRS)\}")


@rule(id="BLD007", lang="cmake", severity="info", fix="safe")
def host_sources_hip_host(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    cmds = [(name, cmd, [_text(data, a) for a in arguments(cmd)]) for name, cmd in commands(cmake_tree(data))]
    if not _enables_cuda(cmds):
        return
    links: dict[str, list[list[str]]] = {}
    toolkit_includes: set[str] = set()
    everywhere = False
    for name, _cmd, args in cmds:
        if name == "target_link_libraries" and args:
            links.setdefault(args[0], []).append(args[1:])
        if any(_TOOLKIT_INCLUDES.search(a) for a in args):
            if name == "include_directories":
                everywhere = True
            elif name == "target_include_directories" and args:
                toolkit_includes.add(args[0])
    inserted = False
    for name, cmd, args in cmds:
        if name not in _TARGET_COMMANDS or not args or _NO_SOURCES & set(args[1:]):
            continue
        target, sources = args[0], [a for a in args[1:] if a not in _LIB_KINDS]
        variable = any(s.startswith("${") for s in sources)
        host = variable or any(_HOST.search(s) for s in sources)
        device = variable or any(_CU.search(s) for s in sources)
        if not host or not (device or everywhere or target in toolkit_includes):
            continue
        calls = links.get(target, [])
        if any(_RUNTIME.match(lib) for call in calls for lib in call):
            continue
        keyword = not calls or any(word in _KEYWORDS for call in calls for word in call)
        line = f"target_link_libraries({target} {'PRIVATE ' if keyword else ''}hip::host)"
        edits = [Edit(start=(at := _next_line(data, cmd.end_byte)), end=at,
                      text=f"{_lead(data, at)}{line_indent(data, cmd.start_byte)}{line}\n")]
        if not inserted and not _finds_hip(cmds):
            edits.append(_find_hip(data, cmds, cmd))
        inserted = True
        yield Hit(cmd.start_byte, cmd.end_byte,
                  f"{target}: its C++ sources call the HIP runtime: link hip::host (include directory, "
                  "__HIP_PLATFORM_AMD__, libamdhip64), as the CUDA language gave them the CUDA runtime",
                  tuple(sorted(edits, key=lambda e: e.start)))


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode()


def _enables_cuda(cmds) -> bool:
    for name, _cmd, args in cmds:
        langs = args[1:] if name == "project" else args
        if name in ("project", "enable_language") and "CUDA" in langs:
            return True
        if name == "find_package" and args and args[0] == "CUDAToolkit":
            return True
    return False


def _finds_hip(cmds) -> bool:
    """find_package(hip) is there, or BLD003 writes it in place of find_package(CUDAToolkit)."""
    return any(name == "find_package" and args and args[0] in ("hip", "CUDAToolkit") for name, _c, args in cmds)


def _find_hip(data: bytes, cmds, target_cmd) -> Edit:
    """find_package(hip REQUIRED) on the line after project(), else on the line before the target."""
    project = next((cmd for name, cmd, _a in cmds if name == "project"), None)
    if project is not None:
        at = _next_line(data, project.end_byte)
        return Edit(start=at, end=at, text=f"{_lead(data, at)}find_package(hip REQUIRED)\n")
    at = data.rfind(b"\n", 0, target_cmd.start_byte) + 1
    return Edit(start=at, end=at, text=f"{line_indent(data, target_cmd.start_byte)}find_package(hip REQUIRED)\n")


def _next_line(data: bytes, offset: int) -> int:
    """Where the line after the one holding `offset` starts (the end of the file on the last line)."""
    nl = data.find(b"\n", offset)
    return len(data) if nl < 0 else nl + 1


def _lead(data: bytes, at: int) -> str:
    """A newline first when inserting at the end of a file that does not end with one."""
    return "\n" if at == len(data) and data and not data.endswith(b"\n") else ""
