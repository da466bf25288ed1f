"""Python sources as Triton rules see them: bytes, a libcst tree, and positions as byte offsets.

`PythonFile` is to Triton code what `porter.syntax.SourceFile` is to CUDA: rules read the
libcst module (with PositionProvider metadata) and return byte-range edits, so the one
edit format, overlap check and workspace serve both languages. libcst keeps comments and
formatting, so an edit changes only the code it names.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from porter.syntax import FileText
from porter.triton_facts import Facts, facts_of
from porter.triton_facts import parse as parse_ast

_NEWLINE = re.compile(r"\r\n?|\n")  # how libcst's PositionProvider counts lines
TRITON_IMPORT = re.compile(rb"^\s*(?:import\s+triton\b|from\s+triton\b)", re.M)


def is_triton(data: bytes) -> bool:
    """A Python file that imports Triton: the unit kind the TRI rules apply to."""
    return TRITON_IMPORT.search(data) is not None


def parse_error(data: bytes) -> str:
    """'' when libcst parses the file, else its message (with the line) for the scan's note."""
    try:
        parsed(data)
    except cst.ParserSyntaxError as e:
        return f"libcst could not parse it (line {e.raw_line}, column {e.raw_column}): not ported"
    return ""


def digest(data: bytes) -> bytes:
    """What the parse and facts caches key a file's bytes by."""
    return hashlib.blake2b(data, digest_size=16).digest()


def parsed(data: bytes, key: bytes | None = None) -> MetadataWrapper:
    """libcst's module of `data` with its position metadata, shared by everything that reads these
    bytes: the scan's check, then each agent's rules while the file is unchanged (libcst trees are
    immutable; rules never rewrite them, they return byte edits). Raises ParserSyntaxError."""
    key = key or digest(data)
    found = _PARSED.get(key)
    if found is not None:
        _PARSED.move_to_end(key)
        return found
    # Freshly parsed and never handed out for rewriting: no defensive deep copy of the tree.
    found = MetadataWrapper(cst.parse_module(data.decode("utf-8")), unsafe_skip_copy=True)
    _PARSED[key] = found
    global _PARSED_BYTES
    _PARSED_BYTES += len(data)
    _SIZES[key] = len(data)
    while _PARSED_BYTES > PARSED_KEEP_BYTES and len(_PARSED) > 1:
        old, _ = _PARSED.popitem(last=False)
        _PARSED_BYTES -= _SIZES.pop(old)
    return found


# A libcst tree with its metadata takes about 35 bytes of memory per byte of source (measured on
# FlagGems' attention.py): 1 MiB of sources, the modules rules rewrite, is kept (some 40 MiB).
PARSED_KEEP_BYTES = 1 << 20
_PARSED: OrderedDict[bytes, MetadataWrapper] = OrderedDict()
_SIZES: dict[bytes, int] = {}
_PARSED_BYTES = 0


# The facts of the last files read, by digest: the scan's, then each agent's, for unchanged bytes.
FACTS_KEEP = 256
_FACTS: OrderedDict[bytes, Facts | None] = OrderedDict()


@dataclass
class PythonFile(FileText):
    lang: str = "triton"
    memo: dict[str, object] = field(default_factory=dict, repr=False)

    @cached_property
    def digest(self) -> bytes:
        return digest(self.data)

    @cached_property
    def facts(self) -> Facts | None:
        """What the module names (porter.triton_facts) for rules' `when` tests; None when `tree` is."""
        key = self.digest
        if key in _FACTS:
            _FACTS.move_to_end(key)
            return _FACTS[key]
        found = _FACTS[key] = None if self.tree is None else facts_of(self.tree)
        while len(_FACTS) > FACTS_KEEP:
            _FACTS.popitem(last=False)
        return found

    @cached_property
    def tree(self) -> ast.Module | None:
        """CPython's own tree of the module (a tenth of libcst's cost), for a rule that needs only
        spans of statements and calls. None when CPython cannot parse it, or when a line ends in a
        lone CR (CPython numbers lines by it; the byte offsets here do not)."""
        if b"\r" in self.data and self.data.count(b"\r") != self.data.count(b"\r\n"):
            return None
        return parse_ast(self.data)

    def ast_span(self, node: ast.expr | ast.stmt) -> tuple[int, int]:
        """Byte offsets [start, end) of a node of `self.tree` (its columns are UTF-8 byte offsets)."""
        starts = self._line_starts
        return starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]

    @cached_property
    def wrapper(self) -> MetadataWrapper:
        """The parsed module with position metadata; raises libcst.ParserSyntaxError on bad input."""
        return parsed(self.data, self.digest)

    @property
    def module(self) -> cst.Module:
        return self.wrapper.module

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Byte offsets [start, end) of a node of `self.module`."""
        r: CodeRange = self._position(node)
        return self.offset(r.start.line, r.start.column), self.offset(r.end.line, r.end.column)

    def _position(self, node: cst.CSTNode) -> CodeRange:
        """libcst's PositionProvider range of `node`, computed for its top-level statement only.

        PositionProvider over a whole module regenerates its code with a position per node, and
        cost more than parsing it; rules ask the span of a few nodes. A top-level statement's
        code starts a line (its leading comments and blank lines included), so positions within
        it, computed on a module of that statement alone, are the module's shifted by its first line.
        """
        from porter.triton_source import statement_of

        found = statement_of(self.module, node)
        if found is None:  # the module itself, or its header: the whole module's positions
            return self.wrapper.resolve(PositionProvider)[node]
        index, stmt = found
        known = self._ranges.get(index)
        if known is None:
            module = self.module
            mini = module.with_changes(header=(), body=(stmt,), footer=(), has_trailing_newline=True)
            ranges = MetadataWrapper(mini, unsafe_skip_copy=True).resolve(PositionProvider)
            anchors = self._first_token_lines
            shift = anchors[index] - ranges[stmt].start.line if anchors is not None else self._first_lines[index] - 1
            known = self._ranges[index] = (ranges, shift)
        ranges, shift = known
        r = ranges[node]
        return CodeRange(CodePosition(r.start.line + shift, r.start.column), CodePosition(r.end.line + shift, r.end.column))

    @cached_property
    def _ranges(self) -> dict[int, tuple[Mapping[cst.CSTNode, CodeRange], int]]:
        """By top-level statement: libcst's ranges on a module of that statement alone, and the
        lines to add to them."""
        return {}

    @cached_property
    def _first_token_lines(self) -> list[int] | None:
        """The line each top-level statement starts on, read from CPython's tree (a line of `a; b`
        is one libcst statement and two of CPython's). None when there is no CPython tree or the
        two do not pair up."""
        tree = self.tree
        if tree is None:
            return None
        lines, j = [], 0
        for stmt in self.module.body:
            if j >= len(tree.body):
                return None
            lines.append(tree.body[j].lineno)  # a decorated def starts at `def` in both
            j += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        return lines if j == len(tree.body) else None

    @cached_property
    def _first_lines(self) -> list[int]:
        """The line each top-level statement's code (leading lines included) starts on, by
        regenerating the module's code (without a CPython tree to read it from)."""
        module = self.module
        line = 1 + sum(len(_NEWLINE.findall(module.code_for_node(h))) for h in module.header)
        firsts = []
        for stmt in module.body:
            firsts.append(line)
            line += len(_NEWLINE.findall(module.code_for_node(stmt)))
        return firsts

    def offset(self, line: int, column: int) -> int:
        """Byte offset of a libcst position (1-based line, 0-based column in characters)."""
        return self._line_starts[line - 1] + len(self.line_text(line)[:column].encode("utf-8"))

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
