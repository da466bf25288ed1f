"""The inventory: files by kind, kernels with their launches, shared memory and warp-level ops.

`scan_tree` reads a tree (the source, or an output tree being ported) and returns what the
agents work from. It never writes. Text is read through its UTF-8 view (porter.encoding), so
a Latin-1 comment or a UTF-16 file is ported like any other; only files that are not text are
classified binary and copied unchanged. A source file among them (by its name) is *unported*:
the report says why, and the run exits 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from porter import kernel_facts
from porter.containment import internal_error
from porter.encoding import detect
from porter.pysyntax import PythonFile, is_triton, parse_error
from porter.state import FileKind, FileRecord, Finding, KernelInfo, LaunchSite, Location
from porter.syntax import CPP_SUFFIXES, CUDA_SUFFIXES, SourceFile, lang_for
from porter.workspace import display_path

WARP_OP = re.compile(r"^(__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__syncwarp|__match_\w+|__reduce_\w+_sync)$")

_LAUNCHES = ("(call_expression function: [(identifier) @name (template_function name: (identifier) @name)]"
             " (kernel_call_syntax)) @call")

MAKEFILE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
# Makefile fragments that Makefiles `include` (GNU make 3.3): Rodinia's common/make.config, the
# *.mk/*.mak/*.make conventions, and per-platform Makefile.<suffix> variants.
MAKE_FRAGMENT_NAMES = frozenset({"make.config", "make.inc", "make.def", "Make.config", "config.mk"})
MAKE_FRAGMENT_SUFFIXES = (".mk", ".mak", ".make")


def build_lang(path: str) -> str | None:
    """The BLD rule language of a path ("cmake", "makefile", "setup_py"), or None for other files."""
    name = PurePosixPath(path.replace("\\", "/")).name
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in MAKEFILE_NAMES or name in MAKE_FRAGMENT_NAMES or name.endswith(MAKE_FRAGMENT_SUFFIXES) \
            or (name.startswith("Makefile.") and not name.endswith((".am", ".in"))):
        return "makefile"
    if name == "setup.py":
        return "setup_py"
    return None


def classify(rel: str, data: bytes) -> tuple[FileKind, str]:
    """The kind of a file from its UTF-8 view (`data`), and a note when it will be copied unchanged.

    A binary file is recognised by `porter.encoding.detect` on its raw bytes, before this.
    """
    if (lang := build_lang(rel)) is not None:
        return FileKind(lang), ""
    name = rel.rsplit("/", 1)[-1]
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    if suffix in CUDA_SUFFIXES:
        return FileKind.cuda, ""
    if suffix in CPP_SUFFIXES:
        return FileKind.cpp, ""
    if suffix == ".py":
        if is_triton(data):
            return FileKind.triton, triton_note(rel, data)
        return FileKind.python, ""
    return FileKind.text, ""


def triton_note(rel: str, data: bytes) -> str:
    """The scan's note on a Triton module: '' when it is ported, else why libcst cannot parse it.

    libcst parses only modules a TRI/SHIM rule may rewrite (its `when` test, from Python's own
    parser: porter.triton_facts), and keeps the tree for those rules. A module CPython parses and
    no rule reads is copied as it is whatever libcst would say of it; one CPython cannot parse
    is left to libcst's verdict, as every module was before.
    """
    from porter.rules import readers

    unit = PythonFile(rel, data)
    if not readers(unit) and unit.tree is not None:
        return ""
    return parse_error(data)


@dataclass(frozen=True)
class Inventory:
    files: list[FileRecord]
    kernels: list[KernelInfo]
    errors: list[Finding] = field(default_factory=list)  # porter failing on a file (porter.containment)


def scan_tree(root: Path, rels: list[str]) -> Inventory:
    """The inventory of the files `rels` under `root`, in their order.

    Each file is read here and scanned through the run's dispatcher (porter.cluster): in this
    process, or, for a large tree, on its worker processes, as the agents' rules are (a scan parses
    every C/C++ file; in the driver alone it was the longest node but one of a 1,000-file port).
    A file the scan fails on is reported (porter.containment) and the scan goes on."""
    from porter import cluster

    scanned: dict[str, tuple[list[FileRecord], list[KernelInfo], list[Finding]]] = {}
    items = []  # the files a parser reads (C/C++/CUDA, Python): the others are scanned here, unsent
    for rel in rels:
        if (shown := display_path(rel)) != rel:
            # The state (and its checkpoints) holds text: such a file is copied, never ported.
            unported = classify(shown, b"")[0] in SOURCE_KINDS
            scanned[rel] = ([FileRecord(path=shown, kind=FileKind.binary, encoding="", unported=unported,
                                        note="file name is not UTF-8 (shown escaped): copied unchanged"
                                             + (", not ported" if unported else ""))], [], [])
            continue
        try:
            item = (rel, (root / rel).read_bytes())
        except Exception as exc:  # noqa: BLE001 - reported as the file's scan failure, as any other
            scanned[rel] = _failed(rel, exc)
            continue
        if lang_for(rel) is not None or rel.endswith(".py"):
            items.append(item)
        else:
            scanned[rel] = _scan_item(item)
    results = cluster.current().map(_scan_item, items, resources=cluster.RULES, label=lambda item: f"scan:{item[0]}")
    for item, result in zip(items, results):
        if isinstance(result, cluster.TaskFailed):  # its node was lost twice: run it here
            result = _scan_item(item)
        scanned[item[0]] = result
    inventory = Inventory([], [], [])
    for rel in rels:
        files, kernels, errors = scanned[rel]
        inventory.files.extend(files)
        inventory.kernels.extend(kernels)
        inventory.errors.extend(errors)
    return inventory


def _scan_item(item: tuple[str, bytes]) -> tuple[list[FileRecord], list[KernelInfo], list[Finding]]:
    """One file's records, kernels and scan failure (none, or porter's bug on it: contained)."""
    rel, raw = item
    files: list[FileRecord] = []
    kernels: list[KernelInfo] = []
    try:
        _scan_file(rel, raw, files, kernels)
    except Exception as exc:  # noqa: BLE001 - porter's bug on one file: contained, the scan goes on
        return _failed(rel, exc)
    return files, kernels, []


def _failed(rel: str, exc: Exception) -> tuple[list[FileRecord], list[KernelInfo], list[Finding]]:
    return [FileRecord(path=rel, kind=classify(rel, b"")[0], note="the scan failed on it")], [], \
        [internal_error(rel, "scan", exc)]


def _scan_file(rel: str, raw: bytes, files: list[FileRecord], kernels: list[KernelInfo]) -> None:
    enc, why = detect(raw)
    lines = raw.count(b"\n") + (1 if raw and not raw.endswith(b"\n") else 0)
    if enc is None:
        unported = classify(rel, b"")[0] in SOURCE_KINDS
        files.append(FileRecord(path=rel, kind=FileKind.binary, lines=lines, encoding="", unported=unported,
                                note=f"{why}: copied unchanged" + (", not ported" if unported else "")))
        return
    data = enc.view(raw)
    kind, note = classify(rel, data)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    parsed = True
    unported = False
    if kind in (FileKind.triton, FileKind.setup_py) and (depth := python_nesting(data)) > MAX_PYTHON_NESTING:
        # libcst's visitors recurse once per level: past this they overflow Python's stack.
        note = f"brackets nested {depth} deep, more than porter's Python parser takes ({MAX_PYTHON_NESTING}): not ported"
        parsed, unported = False, True
    elif kind == FileKind.triton:
        parsed = not note
        unported = not parsed
    if kind in (FileKind.cuda, FileKind.cpp):
        unit = SourceFile(rel, data, lang_for(rel) or "cpp")
        parsed = unit.parsed
        if not parsed:
            note = "tree-sitter could not parse all of it: translated token by token"
        kernels.extend(find_kernels(unit))
    files.append(FileRecord(path=rel, kind=kind, lines=lines, parsed=parsed, note=note, unported=unported,
                            encoding=enc.name))


MAX_PYTHON_NESTING = 100
_PY_NON_CODE = re.compile(rb"#[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_PY_BRACKET = re.compile(rb"[][(){}]")


def python_nesting(data: bytes) -> int:
    """The deepest bracket nesting of a Python file (strings and comments left out), in one pass."""
    depth = deepest = 0
    for m in _PY_BRACKET.finditer(_PY_NON_CODE.sub(b"", data)):
        depth = depth + 1 if m.group() in b"([{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


# Kinds porter ports: a file of one of these (by name) that is not text is a unit it could not port.
SOURCE_KINDS = frozenset({FileKind.cuda, FileKind.cpp, FileKind.cmake, FileKind.makefile, FileKind.setup_py,
                          FileKind.triton})


def find_kernels(unit: SourceFile) -> list[KernelInfo]:
    if unit.lang != "cuda":
        return []  # __global__ and <<<>>> exist only in the CUDA grammar (.cu/.cuh)
    launches: dict[str, list[LaunchSite]] = {}
    for m in unit.matches(_LAUNCHES):
        name, call = unit.text(m["name"][0]), m["call"][0]
        line, col = unit.line_col(call.start_byte)
        launches.setdefault(name, []).append(
            LaunchSite(location=Location(path=unit.path, line=line, column=col), text=unit.text(call)))
    kernels = []
    for k in kernel_facts.kernels(unit):
        line, col = unit.line_col(k.name_node.start_byte)
        body = k.fn.child_by_field_name("body")
        shared = kernel_facts.static_shared_bytes(unit, k)
        kernels.append(KernelInfo(
            name=k.name, location=Location(path=unit.path, line=line, column=col),
            launches=tuple(launches.get(k.name, ())),
            # A size past any device's memory (and past the checkpoint's 64-bit integers) is not a
            # figure porter can use: reported as not evaluated, like a size that is not a constant.
            static_shared_bytes=shared if shared is not None and shared < MAX_STATIC_BYTES else None,
            warp_ops=tuple(sorted({unit.text(n) for n in _identifiers(body) if WARP_OP.match(unit.text(n))})),
        ))
    return kernels


def _identifiers(node):
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            yield n
        stack.extend(n.children)


MAX_STATIC_BYTES = 1 << 48
