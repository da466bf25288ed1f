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
from pathlib import Path

from porter.agents.translator.buildfiles import build_lang
from porter.containment import internal_error
from porter.encoding import detect
from porter.pysyntax import is_triton, parse_error
from porter.state import FileKind, FileRecord, Finding, KernelInfo, LaunchSite, Location
from porter.workspace import display_path
from porter.syntax import CPP_SUFFIXES, CUDA_SUFFIXES, SourceFile, int_literal, lang_for


# Sizes of the scalar types that shared arrays are commonly declared with (bytes, as on both vendors).
TYPE_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
              "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__hip_bfloat16": 2, "__nv_bfloat16": 2,
              "int16_t": 2, "uint16_t": 2, "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4,
              "int32_t": 4, "uint32_t": 4, "double": 8, "long long": 8, "unsigned long long": 8,
              "int64_t": 8, "uint64_t": 8, "float2": 8, "float4": 16, "int4": 16, "double2": 16}

WARP_OP = re.compile(r"^(__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__syncwarp|__match_\w+|__reduce_\w+_sync)$")

_KERNELS = "(function_definition (function_declarator) @decl) @fn"
_LAUNCHES = ("(call_expression function: [(identifier) @name (template_function name: (identifier) @name)]"
             " (kernel_call_syntax)) @call")
_SHARED = "(declaration (type_qualifier) @q) @decl"


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
            return FileKind.triton, parse_error(data)
        return FileKind.python, ""
    return FileKind.text, ""


@dataclass(frozen=True)
class Inventory:
    files: list[FileRecord]
    kernels: list[KernelInfo]
    errors: list[Finding] = field(default_factory=list)  # porter failing on a file (porter.containment)


def scan_tree(root: Path, rels: list[str]) -> Inventory:
    files: list[FileRecord] = []
    kernels: list[KernelInfo] = []
    errors: list[Finding] = []
    for rel in rels:
        if (shown := display_path(rel)) != rel:
            # The state (and its checkpoints) holds text: such a file is copied, never ported.
            unported = classify(shown, b"")[0] in SOURCE_KINDS
            files.append(FileRecord(path=shown, kind=FileKind.binary, encoding="", unported=unported,
                                    note="file name is not UTF-8 (shown escaped): copied unchanged"
                                         + (", not ported" if unported else "")))
            continue
        try:
            _scan_file(root, rel, files, kernels)
        except Exception as exc:  # noqa: BLE001 - porter's bug on one file: contained, the scan goes on
            errors.append(internal_error(rel, "scan", exc))
            files.append(FileRecord(path=rel, kind=classify(rel, b"")[0], note="the scan failed on it"))
    return Inventory(files, kernels, errors)


def _scan_file(root: Path, rel: str, files: list[FileRecord], kernels: list[KernelInfo]) -> None:
    raw = (root / rel).read_bytes()
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
    for m in unit.matches(_KERNELS):
        fn = m["fn"][0]
        if not any(c.type == "__global__" for c in fn.children):
            continue
        name_node = m["decl"][0].child_by_field_name("declarator")
        if name_node is None:
            continue
        name = unit.text(name_node).split("::")[-1]
        line, col = unit.line_col(name_node.start_byte)
        body = fn.child_by_field_name("body")
        kernels.append(KernelInfo(
            name=name, location=Location(path=unit.path, line=line, column=col),
            launches=tuple(launches.get(name, ())),
            static_shared_bytes=_static_shared(unit, body) if body else 0,
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


def _static_shared(unit: SourceFile, body) -> int | None:
    """Bytes of the kernel's static __shared__ arrays; None when a size is not a literal."""
    total = 0
    for m in unit.matches(_SHARED, body):
        decl = m["decl"][0]
        if unit.text(m["q"][0]) != "__shared__" or any(c.type == "storage_class_specifier" for c in decl.children):
            continue  # `extern __shared__` is dynamic: sized at launch
        type_node = decl.child_by_field_name("type")
        size = TYPE_BYTES.get(unit.text(type_node)) if type_node else None
        declarator = decl.child_by_field_name("declarator")
        while declarator is not None and declarator.type == "array_declarator":
            dim = declarator.child_by_field_name("size")
            lit = int_literal(unit.text(dim)) if dim is not None and dim.type == "number_literal" else None
            if size is None or lit is None:
                return None
            size *= lit[0]
            declarator = declarator.child_by_field_name("declarator")
        if size is None:
            return None
        total += size
    # A size past any device's memory (and past the checkpoint's 64-bit integers) is not a
    # figure porter can use: reported as not evaluated, like a size that is not a literal.
    return total if total < MAX_STATIC_BYTES else None


MAX_STATIC_BYTES = 1 << 48
