"""The `#include` directives of a C/C++/CUDA file, and whether the file belongs to a PyTorch extension.

The translator's HIP rules (agents/translator/tokens.py) rename what a file includes; the verifier
builds a PyTorch extension's unit differently from a plain one. Both read the includes here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.syntax import SourceFile, first_on_line

INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
# INCLUDE from its `#` (found in C), where the `#` begins its line (syntax.first_on_line)
_HASH_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')
EXTENSION_HEADERS = ("torch/", "ATen/", "c10/")


def include_paths(data: bytes) -> Iterator[bytes]:
    """The path of each `#include` whose `#` begins its line, code or not, in order: what
    `INCLUDE.finditer(data)` captures as group 2, found from the `#` (which sre scans for as a
    literal, where `^` in re.M had it try every byte)."""
    return (m.group(2) for m in _HASH_INCLUDE.finditer(data) if first_on_line(data, m.start()))


def includes(unit: SourceFile) -> list[tuple[int, int, str, bool]]:
    """(start, end, path, angled) of each `#include` whose `#` is code (not inside a block comment)."""
    out = []
    data = unit.data
    for m in _HASH_INCLUDE.finditer(data):
        if first_on_line(data, m.start()) and unit.is_code(m.start()):
            out.append((m.start(1), m.end(), m.group(2).decode("utf-8", "replace").strip(), m.group(1) == b"<"))
    return out


def includes_torch(raw: list[tuple[int, int, str, bool]]) -> bool:
    """Whether any of `includes()`'s results is a torch, ATen or c10 header."""
    return any(path.startswith(EXTENSION_HEADERS) for _, _, path, _ in raw)


def is_extension(unit: SourceFile) -> bool:
    """Whether the file is part of a PyTorch extension: it includes torch, ATen or c10 headers."""
    return includes_torch(includes(unit))
