"""Python sources as Triton rules see them: bytes, a libcst tree, and positions as byte offsets.

`PythonFile` is to Triton code what `porter.syntax.SourceFile` is to CUDA: rules read the
libcst module (with PositionProvider metadata) and return byte-range edits, so the one
edit format, overlap check and workspace serve both languages. libcst keeps comments and
formatting, so an edit changes only the code it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from porter.syntax import FileText

TRITON_IMPORT = re.compile(rb"^\s*(?:import\s+triton\b|from\s+triton\b)", re.M)


def is_triton(data: bytes) -> bool:
    """A Python file that imports Triton: the unit kind the TRI rules apply to."""
    return TRITON_IMPORT.search(data) is not None


def parse_error(data: bytes) -> str:
    """'' when libcst parses the file, else its message (with the line) for the scan's note."""
    try:
        cst.parse_module(data.decode("utf-8"))
    except cst.ParserSyntaxError as e:
        return f"libcst could not parse it (line {e.raw_line}, column {e.raw_column}): not ported"
    return ""


@dataclass
class PythonFile(FileText):
    lang: str = "triton"
    memo: dict[str, object] = field(default_factory=dict, repr=False)

    @cached_property
    def wrapper(self) -> MetadataWrapper:
        """The parsed module with position metadata; raises libcst.ParserSyntaxError on bad input."""
        # Freshly parsed and never shared: no defensive deep copy of the tree.
        return MetadataWrapper(cst.parse_module(self.data.decode("utf-8")), unsafe_skip_copy=True)

    @property
    def module(self) -> cst.Module:
        return self.wrapper.module

    @cached_property
    def positions(self):
        return self.wrapper.resolve(PositionProvider)

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Byte offsets [start, end) of a node of `self.module`."""
        r: CodeRange = self.positions[node]
        return self.offset(r.start.line, r.start.column), self.offset(r.end.line, r.end.column)

    def offset(self, line: int, column: int) -> int:
        """Byte offset of a libcst position (1-based line, 0-based column in characters)."""
        return self._line_starts[line - 1] + len(self.line_text(line)[:column].encode("utf-8"))

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
