"""Syntax trees for the files porter reads: tree-sitter for CUDA and C++.

`SourceFile` is what a rule sees: the file's bytes, its tree, and the byte ranges that are not
code (string and character literals, comments). Renaming and detection work on code tokens
only, so a `"cudaMalloc failed"` message or a `// cudaMemcpy` comment is never touched.

Two places tree-sitter leaves as raw text are lexed here instead: the body of a `#define`
(`preproc_arg`) and any ERROR region of a file tree-sitter could not fully parse. That is the
"token by token" fallback: such a file is still translated, and flagged.

Two grammars, one rule set: a rule's queries are written for the CUDA grammar (a superset of
C++). A C/C++ file that uses CUDA syntax (`__global__`, `<<<...>>>`; hipcc and `nvcc -x cu`
compile such .cpp files) is parsed with the CUDA grammar; any other C/C++ file with the C++
one, where a query naming CUDA-only syntax compiles to nothing and matches nothing
(`query` returns None). A query neither grammar accepts is a bug and raises.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import accumulate
from typing import Any

import tree_sitter_cpp
import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query, QueryCursor, QueryError, Tree

CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
CPP_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".hip", ".inl"})

# One traversal finds both what is not code and the raw text tree-sitter leaves unparsed.
_NON_CODE = ("[(string_literal) (char_literal) (raw_string_literal) (comment) (system_lib_string)] @literal"
             " [(preproc_arg) (ERROR)] @raw")

# Strings, chars and comments inside raw text; identifiers are what is left.
_LEX_NON_CODE = re.compile(
    rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/', re.S
)
IDENTIFIER = re.compile(rb"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
_PLUS_ONE = (1).__add__
_START = re.Match.start
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint union of byte ranges (a string inside an ERROR node is found twice)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


# The node types `_NON_CODE` captures as @literal, and the raw text one (@raw) where the tree has no ERROR.
_LITERALS = frozenset({"string_literal", "char_literal", "raw_string_literal", "comment", "system_lib_string"})
# Where any of them can begin: every literal and comment, and every string, character literal or
# comment `_LEX_NON_CODE` finds in raw text, holds one of these bytes at or just after its start
# (a quote, after a prefix such as u8 or R; `<` of a system header; the `/` of `//` or `/*`).
# Where one can begin but a `<`: a quote, or the `/` of `//` or `/*`. Alternatives that each begin
# with a literal byte: sre skips to the next of them in C (a class first, `["']`, made it try the
# pattern at every byte). The `<` (`_DIRECTIVE_PATH`, `_IMPORT_PATH`) are merged in by position.
_LITERAL_START = re.compile(rb"\"|'|/(?=[/*])")
# A `<` begins a literal only as a system header's path (system_lib_string): the first token after
# a preprocessor directive's name (`#include <cstdio>`), or after `import` (a C++ header unit).
# Between them tree-sitter skips its extras: white space, backslash-newlines and comments (a `//`
# one continued over backslash-newlines, as the grammar's comment token is). Any byte >= 0x80 is
# taken as white space too (the grammar's \s is Unicode's): more `<` than needed only costs a
# descent each. Possessive loops: no backtracking however many backslashes a comment holds. Every
# other `<` (a comparison, a shift, a template, a launch's `<<<`: most of a CUDA file's candidate
# bytes) cannot begin a literal, and the smallest named node over it decides nothing: it is skipped.
_EXTRAS = rb"(?:[\s\x80-\xff]|\\\r?\n|//(?:[^\\\n]|\\+[\s\S])*+|/\*(?:[^*]|\*+[^*/])*+\*+/)*+"
_DIRECTIVE_PATH = re.compile(rb"#[ \t]*+[A-Za-z_][A-Za-z0-9_]*+" + _EXTRAS + rb"<")
_IMPORT_PATH = re.compile(rb"import" + _EXTRAS + rb"<")
# The named nodes inside a literal; found first at a candidate byte, the tree is not as
# `_non_code_spans` expects, and the query decides.
_INSIDE_LITERALS = frozenset({"string_content", "escape_sequence", "raw_string_content", "raw_string_delimiter",
                              "character"})


def _non_code_spans(tree: Tree, data: bytes) -> list[tuple[int, int]] | None:
    """The spans the `_NON_CODE` query gives (its literals, and what `_LEX_NON_CODE` finds in its raw
    text), unmerged, without a walk of the whole tree: from each byte where one can begin
    (`_LITERAL_START`, and the `<` where a path can), the smallest named node over that byte, in one descent; a literal or a
    `#define` body (preproc_arg, lexed as the query's caller lexes it) is then skipped whole. The
    query visited every node of the file, a fifth of the translator's work besides the parse.

    Every literal node begins with a quote or comment opener that lies in no earlier literal (they
    do not nest), and the smallest named node over it is the literal itself (its opening token is
    anonymous). An ERROR node's text is lexed whole, as the query lexes it (`_errors` finds them
    along the nodes that hold one); a candidate byte whose smallest named node is an ERROR is left
    to that lexing, the literals inside it found as elsewhere. None where a candidate byte lands
    inside a literal's parts: the query then decides."""
    root = tree.root_node
    over = root.named_descendant_for_byte_range
    spans: list[tuple[int, int]] = []
    if root.has_error:
        for error in _errors(root):
            spans.extend(x.span() for x in _LEX_NON_CODE.finditer(data, error.start_byte, error.end_byte))
    end = 0
    paths = [m.end() - 1 for m in _DIRECTIVE_PATH.finditer(data)]  # the `<` that may begin a system header's path
    if b"import" in data:
        paths += [m.end() - 1 for m in _IMPORT_PATH.finditer(data)]
    # Every other `<`, and a `/` not `//` nor `/*`, begins none: not visited (two thirds of the
    # bytes a class of all four stopped at on bench/translate.py's corpus: 23,977 -> 7,993).
    starts = list(map(_START, _LITERAL_START.finditer(data)))
    if paths:
        starts = sorted({*starts, *paths})
    for at in starts:
        if at < end:
            continue
        node = over(at, at + 1)
        kind = node.type if node is not None else ""
        if kind in _LITERALS:
            end = node.end_byte  # type: ignore[union-attr]
            spans.append((node.start_byte, end))  # type: ignore[union-attr]
        elif kind == "preproc_arg":
            end = node.end_byte  # type: ignore[union-attr]
            spans.extend(x.span() for x in _LEX_NON_CODE.finditer(data, node.start_byte, end))  # type: ignore[union-attr]
        elif kind in _INSIDE_LITERALS:
            return None
        # else an operator, a template's `<`, a digit separator, or an ERROR (lexed above): code
    return spans


def _errors(root: Node) -> Iterator[Node]:
    """The tree's ERROR nodes, nested ones too: a walk down the nodes whose subtree holds an error
    (`has_error`), not of the whole tree."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            yield node
        stack.extend(child for child in node.children if child.has_error)


@cache
def language(lang: str) -> Language:
    if lang == "cuda":
        return Language(tree_sitter_cuda.language())
    if lang == "cpp":
        return Language(tree_sitter_cpp.language())
    raise ValueError(f"no tree-sitter grammar for {lang!r}")


@cache
def _parser(lang: str) -> Parser:
    return Parser(language(lang))


@cache
def query(lang: str, source: str) -> Query | None:
    """The compiled query; None when it names CUDA-only syntax and `lang` is C++ (it cannot match)."""
    try:
        return Query(language(lang), source)
    except QueryError:
        if lang == "cuda":
            raise
        Query(language("cuda"), source)  # raises when the query is wrong in every grammar
        return None


_WORD_BYTE = rb"[A-Za-z0-9_]"
_LITERAL_HEAD = re.compile(rb"[A-Za-z0-9_]+")


def word_search(alternatives: Iterable[str | bytes], *, whole: bool = False) -> Callable[[bytes], bool]:
    """Whether `(?<![A-Za-z0-9_])(?:alt|...)` matches anywhere in some bytes (also followed by
    `(?![A-Za-z0-9_])` where `whole`): an identifier that begins like one of `alternatives`,
    each a regex that begins with a literal word character (`cuda[A-Z]`, `__global__`).

    The same answer as that one search, from one search per head of two literal bytes (`cu`,
    `CU`, `__`), each written literal first, `cu(?<![A-Za-z0-9_]cu)(?:da[A-Z]|[A-Z])`: sre then
    finds the head with its literal scan and tries the rest only there, where the lookbehind
    or `\\b` first made it try every byte of the file. A trigger's search runs to the file's end
    on a file that does not hold the name, most files of a real tree: over cuda-samples and
    rodinia (15 MB) 24 ms against 185 ms for the prefixes of a CUDA name."""
    groups: dict[bytes, list[tuple[bytes, bytes]]] = {}  # by the first two bytes of the head: (head, regex)
    for alternative in alternatives:
        source = alternative.encode() if isinstance(alternative, str) else alternative
        head = _literal_head(source)
        groups.setdefault(head[:2], []).append((head, source))
    end = b"(?!" + _WORD_BYTE + b")" if whole else b""
    searches = []
    for _, members in sorted(groups.items()):
        common = _common_prefix([head for head, _ in members])
        tails = b"|".join(source[len(common):] for _, source in members)
        searches.append(re.compile(re.escape(common) + b"(?<!" + _WORD_BYTE + re.escape(common) + b")(?:" + tails
                                   + b")" + end).search)

    def found(data: bytes) -> bool:
        return any(search(data) is not None for search in searches)

    return found


def _literal_head(source: bytes) -> bytes:
    """The literal word bytes `source` begins with (`cuda` of `cuda[A-Z]`; `a` of `ab?`: a byte
    a quantifier follows is not literal); a ValueError where there is none, or where `source`
    has a `|` (each branch is an alternative of its own)."""
    head = _LITERAL_HEAD.match(source)
    literal = head.group() if head else b""
    if source[len(literal):len(literal) + 1] in (b"?", b"*", b"+", b"{"):
        literal = literal[:-1]
    if not literal or b"|" in source:
        raise ValueError(f"{source!r}: not a regex that begins with a literal word character, without `|`")
    return literal


def _common_prefix(words: list[bytes]) -> bytes:
    first, last = min(words), max(words)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


# CUDA syntax the C++ grammar cannot parse: a C/C++ file holding any of it is read as CUDA. The definition;
# `has_cuda_syntax` answers it literal first (a test holds the two equal).
CUDA_SYNTAX = re.compile(rb"<<<|\b__(?:global|device|shared|constant|managed|launch_bounds)__\b")
_CUDA_KEYWORD = word_search([rb"__global__", rb"__device__", rb"__shared__", rb"__constant__", rb"__managed__",
                             rb"__launch_bounds__"], whole=True)


def has_cuda_syntax(data: bytes) -> bool:
    """Whether `CUDA_SYNTAX` occurs in `data` (a launch or an execution-space keyword), from
    searches sre runs literal first (`word_search`)."""
    return b"<<<" in data or _CUDA_KEYWORD(data)



def lang_for(path: str) -> str | None:
    """tree-sitter grammar for a path: the CUDA grammar for .cu/.cuh, C++ for C/C++ files."""
    dot = path.rfind(".")
    suffix = path[dot:].lower() if dot >= 0 else ""
    if suffix in CUDA_SUFFIXES:
        return "cuda"
    if suffix in CPP_SUFFIXES:
        return "cpp"
    return None


_INT_LITERAL = re.compile(r"(-?)(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uUlLzZ]*)")


def int_literal(text: str) -> tuple[int, str] | None:
    """(value, lower-case suffix) of a C/C++ integer literal (hex, binary, octal, decimal, with
    digit separators and u/l/z suffixes); None for anything else (a float, `08`, a UDL)."""
    m = _INT_LITERAL.fullmatch(text.strip())
    if not m or m.group(2).endswith("'") or "''" in m.group(2):
        return None
    digits = m.group(2).replace("'", "")
    if len(digits) > 2 and digits[1] in "xXbB":
        value = int(digits, 0)
    else:
        value = int(digits, 8) if digits.startswith("0") else int(digits)
    return (-value if m.group(1) else value), m.group(3).lower()


def first_on_line(data: bytes, at: int) -> bool:
    """Whether only spaces and tabs precede byte `at` on its line: a pattern `^[ \t]*#...` (re.M)
    matches where `#...` matches at a `#` for which this holds. sre tried the former at every line
    start; the latter, a literal `#` first, it finds in C (a `#...` that cannot cross a newline
    matches within its line, so it hides no line's first `#`)."""
    return not data[data.rfind(b"\n", 0, at) + 1:at].strip(b" \t")


def first_bytes(pattern: bytes) -> set[int] | None:
    """Every byte a match of `pattern` can begin with, read from sre's parse of it (zero-width
    assertions such as `\\b` or `^` skipped); None where the parse holds anything else than
    literals, classes of literals and ranges, groups and branches before the first byte."""
    try:  # CPython's own regex parser (3.11+); elsewhere no shortcut, the plain pattern
        from re import _constants as sre  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:
        return None

    def first(items) -> set[int] | None:
        for op, av in items:
            if op is sre.AT:
                continue  # matches no byte
            if op is sre.LITERAL:
                return {av}
            if op is sre.IN:
                found: set[int] = set()
                for kind, value in av:
                    if kind is sre.LITERAL:
                        found.add(value)
                    elif kind is sre.RANGE:
                        found.update(range(value[0], value[1] + 1))
                    else:
                        return None
                return found
            if op is sre.BRANCH:
                found = set()
                for alternative in av[1]:
                    sub = first(alternative)
                    if sub is None:
                        return None
                    found |= sub
                return found
            if op is sre.SUBPATTERN:
                return first(av[-1])
            return None
        return None  # an empty pattern matches before any byte

    return first(_parser.parse(pattern))


SNIPPET_WIDTH = 160


@dataclass
class FileText:
    """A file's relative path and bytes, with the line index every kind of unit reports by."""

    path: str  # relative, posix
    data: bytes
    _line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Where each line starts: the running sum of the line lengths (newline included), in C.
        self._line_starts = [0, *accumulate(map(_PLUS_ONE, map(len, self.data.split(b"\n")[:-1])))]
        self._ascii_lines: dict[int, bool] = {}
        self._snippets: dict[int, str] = {}  # by line index: a line's findings share its snippet

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and character column of a byte offset.

        On an ASCII line the column is arithmetic; otherwise only the line's prefix is decoded.
        A 5 MB one-line file yields thousands of findings, each asking this.
        """
        i = bisect.bisect_right(self._line_starts, offset) - 1
        start = self._line_starts[i]
        ascii_line = self._ascii_lines.get(i)
        if ascii_line is None:
            end = self._line_starts[i + 1] if i + 1 < len(self._line_starts) else len(self.data)
            ascii_line = self._ascii_lines[i] = self.data[start:end].isascii()
        if ascii_line:
            return i + 1, offset - start + 1
        return i + 1, len(self.data[start:offset].decode("utf-8", "replace")) + 1

    def span_line_col(self, start: int, end: int) -> tuple[int, int, int, int]:
        """`line_col` of both ends of a span (start <= end): one search where both lie on one ASCII line."""
        line, col = self.line_col(start)
        starts = self._line_starts
        if start <= end and self._ascii_lines[line - 1] and (line == len(starts) or end < starts[line]):
            return line, col, line, col + end - start
        return (line, col, *self.line_col(end))

    def place(self, start: int, end: int) -> tuple[int, int, int, int, str]:
        """`span_line_col(start, end)` and `snippet(start)` together, from one search of the line
        index (a finding asks both, and a translated file yields thousands of findings)."""
        return self.places((start,), (end,))[0]

    def places(self, starts: Iterable[int], ends: Iterable[int]) -> list[tuple[int, int, int, int, str]]:
        """`place` of each span (start, end), in one call: the line index and the caches looked up
        once for all of a rule's hits, not once per hit."""
        found = bisect.bisect_right
        line_starts, data, ascii_lines, snippets = self._line_starts, self.data, self._ascii_lines, self._snippets
        lines = len(line_starts)
        out = []
        for start, end in zip(starts, ends):
            i = found(line_starts, start) - 1
            at = line_starts[i]
            ascii_line = ascii_lines.get(i)
            if ascii_line is None:
                ascii_line = ascii_lines[i] = data[at:line_starts[i + 1] if i + 1 < lines else len(data)].isascii()
            if ascii_line:
                line, col = i + 1, start - at + 1
            else:
                line, col = i + 1, len(data[at:start].decode("utf-8", "replace")) + 1
            if start <= end and ascii_line and (line == lines or end < line_starts[line]):
                end_line, end_col = line, col + end - start
            else:
                end_line, end_col = self.line_col(end)
            snippet = snippets.get(i)
            if snippet is None:
                stop = data.find(b"\n", at)
                stop = stop if stop >= 0 else len(data)
                if stop - at <= 4 * SNIPPET_WIDTH:  # as `snippet` does, from the line found above
                    snippet = snippets[i] = data[at:stop].decode("utf-8", "replace").strip()
                else:
                    snippet = self.snippet(start)
            out.append((line, col, end_line, end_col, snippet))
        return out

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self.data.find(b"\n", start)
        return self.data[start : end if end >= 0 else len(self.data)].decode("utf-8", "replace")

    def snippet(self, offset: int, width: int = SNIPPET_WIDTH) -> str:
        """The line around `offset`, stripped, clipped to about `width` characters (with "...")."""
        i = bisect.bisect_right(self._line_starts, offset) - 1
        if width == SNIPPET_WIDTH and (known := self._snippets.get(i)) is not None:
            return known
        start = self._line_starts[i]
        end = self.data.find(b"\n", start)
        end = end if end >= 0 else len(self.data)
        if end - start <= 4 * width:
            text = self.data[start:end].decode("utf-8", "replace").strip()
            if width == SNIPPET_WIDTH:
                self._snippets[i] = text
            return text
        lo, hi = max(start, offset - width // 2), min(end, offset + width // 2)
        text = self.data[lo:hi].decode("utf-8", "ignore").strip()
        return ("..." if lo > start else "") + text + ("..." if hi < end else "")


@dataclass
class SourceFile(FileText):
    """One C/C++/CUDA file: bytes, tree, and where the code is."""

    lang: str
    tree: Tree = field(init=False)
    memo: dict[str, object] = field(default_factory=dict, repr=False)  # derived data rules share
    _non_code_starts: list[int] = field(init=False, repr=False)
    _non_code_ends: list[int] = field(init=False, repr=False)
    # An earlier tree of this path (`parsed`): the same bytes' tree, used as it is, or one edited
    # (Tree.edit) to these bytes, which tree-sitter re-parses reusing its unchanged subtrees.
    base: _Kept | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._pick_grammar()
        base, self.base = self.base, None
        self._parse(base)

    def _pick_grammar(self) -> None:
        if self.lang == "cpp" and has_cuda_syntax(self.data):
            self.lang = "cuda"  # C++ holding CUDA syntax: see the module docstring

    def _parse(self, base: _Kept | None) -> None:
        """The tree (from `base`, an earlier tree of this path, where it fits) and where the code is."""
        if base is not None and base.lang == self.lang and base.data == self.data:
            self.tree = base.tree if not base.edits else _parser(self.lang).parse(self.data, base.edited())
        else:
            self.tree = _parser(self.lang).parse(self.data)
        self._find_non_code()

    def _find_non_code(self) -> None:
        """Where the strings, character literals and comments are (`is_code`), from the tree."""
        spans = _non_code_spans(self.tree, self.data)
        if spans is None:
            found = QueryCursor(query(self.lang, _NON_CODE)).captures(self.tree.root_node)  # type: ignore[arg-type]
            spans = [(n.start_byte, n.end_byte) for n in found.get("literal", ())]
            for node in found.get("raw", ()):
                spans.extend(m.span() for m in _LEX_NON_CODE.finditer(self.data, node.start_byte, node.end_byte))
        merged = _merge(spans)
        self._non_code_starts = [s for s, _ in merged]
        self._non_code_ends = [e for _, e in merged]

    @property
    def parsed(self) -> bool:
        """True when tree-sitter parsed the whole file without ERROR or MISSING nodes."""
        return not self.tree.root_node.has_error

    @property
    def depth(self) -> int:
        """How deeply the syntax tree nests (a 3,000-operand sum is 3,000 deep), in one walk."""
        if "syntax.depth" not in self.memo:
            cursor, depth, deepest = self.tree.walk(), 0, 0
            while True:
                if cursor.goto_first_child():
                    depth += 1
                    deepest = max(deepest, depth)
                    continue
                while not cursor.goto_next_sibling():
                    if not cursor.goto_parent():
                        self.memo["syntax.depth"] = deepest
                        return deepest
                    depth -= 1
        return self.memo["syntax.depth"]  # type: ignore[return-value]

    def captures(self, source: str, node: Node | None = None) -> list[Node]:
        """All nodes captured by a tree-sitter query (any capture name), in source order."""
        compiled = query(self.lang, source)
        if compiled is None:
            return []
        found = QueryCursor(compiled).captures(node or self.tree.root_node)
        nodes = [n for ns in found.values() for n in ns]
        nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
        return nodes

    def matches(self, source: str, node: Node | None = None) -> list[dict[str, list[Node]]]:
        """Query matches, each as {capture name: nodes}, in source order."""
        compiled = query(self.lang, source)
        if compiled is None:
            return []
        found = QueryCursor(compiled).matches(node or self.tree.root_node)
        return [caps for _, caps in found]

    def is_code(self, offset: int) -> bool:
        i = bisect.bisect_right(self._non_code_starts, offset) - 1
        return i < 0 or offset >= self._non_code_ends[i]

    def identifiers(self, pattern: re.Pattern[bytes] = IDENTIFIER) -> Iterator[tuple[int, int, str]]:
        """(start, end, name) of every identifier-like token in code, in order.

        `pattern` may narrow the scan to the identifiers a caller cares about (it must match
        whole identifiers only), so the filtering happens in the regex engine, not in Python.
        """
        code = self.code_only
        if code is not None:
            return ((m.start(), m.end(), m.group().decode()) for m in pattern.finditer(code))
        return self._identifiers_between(pattern)

    @cached_property
    def code_only(self) -> bytes | None:
        """The bytes with every string, character literal and comment blanked to spaces, offsets kept.

        An identifier pattern then finds in it exactly the code identifiers it finds in the file,
        with no per-match test in Python, as long as no literal or comment begins or ends in the
        middle of a run of identifier characters (then a run is all code or all blanked). None
        when one does: `identifiers` then tests each match against the spans.
        """
        data, n = self.data, len(self.data)
        out = bytearray(data)
        for s, e in zip(self._non_code_starts, self._non_code_ends):
            splits_start = s > 0 and data[s - 1] in _WORD and data[s] in _WORD
            if splits_start or (e < n and data[e - 1] in _WORD and data[e] in _WORD):
                return None
            out[s:e] = b" " * (e - s)
        return bytes(out)

    def _identifiers_between(self, pattern: re.Pattern[bytes]) -> Iterator[tuple[int, int, str]]:
        starts, ends = self._non_code_starts, self._non_code_ends
        j, n = 0, len(starts)
        data = self.data
        for m in pattern.finditer(data):
            s = m.start()
            while j < n and ends[j] <= s:
                j += 1
            if j < n and starts[j] <= s:
                continue
            yield s, m.end(), m.group().decode()

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")



@dataclass
class _Kept:
    """A tree kept for the next parse of its path: that of `old` (a file's bytes, with their line
    starts), and the byte edits (start, end, text) a patch then made of them."""

    old: bytes
    lang: str
    tree: Tree
    line_starts: list[int]
    edits: tuple[tuple[int, int, str], ...]
    _data: bytes | None = None

    @property
    def data(self) -> bytes:
        """The bytes the edits give (porter.state.Patch.apply_to's order: by start, then end), made when first asked."""
        if self._data is None:
            pieces: list[bytes] = []
            at = 0
            for start, end, text in sorted(self.edits, key=_START_END):
                pieces += (self.old[at:start], text.encode())
                at = end
            pieces.append(self.old[at:])
            self._data = b"".join(pieces)
        return self._data

    def edited(self) -> Tree:
        """The tree edited (a copy; Tree.edit) to describe `data`, for tree-sitter's incremental parse."""
        if not self.edits:
            return self.tree
        tree = self.tree.copy()
        starts = self.line_starts

        def point(offset: int) -> tuple[int, int]:
            i = bisect.bisect_right(starts, offset) - 1
            return i, offset - starts[i]

        # Backwards through apply_to's order (by start, then end): each edit's start and old end
        # are then still where they were in the old bytes.
        for start, end, text in sorted(self.edits, key=_START_END, reverse=True):
            row, col = point(start)
            added = text.encode()
            lines = added.count(b"\n")
            tail = len(added) - (added.rfind(b"\n") + 1)
            tree.edit(start_byte=start, old_end_byte=end, new_end_byte=start + len(added), start_point=(row, col),
                      old_end_point=point(end), new_end_point=(row + lines, tail if lines else col + tail))
        return tree


class LazySourceFile(SourceFile):
    """A SourceFile parsed when its tree, or where its code is, is first read: a header a rule
    reads only for its bytes or for the `#include "..."` it names (porter.rules' RuleContext.included,
    which needs no tree where the file has no such directive) is never parsed. The same answers
    as SourceFile's, later; no earlier tree (`base`) is taken."""

    def __post_init__(self) -> None:
        FileText.__post_init__(self)
        self._pick_grammar()
        self.base = None

    def __getattr__(self, name: str) -> Any:
        # Called only for what is not set yet: the tree and the non-code spans, made together.
        if name in ("tree", "_non_code_starts", "_non_code_ends"):
            self._parse(None)
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _START_END(edit: tuple[int, int, str]) -> tuple[int, int]:
    return edit[0], edit[1]


# Trees kept between one agent's pass over a file and the next one's, by path, in this process
# (`remember`, `kept`). A tree takes about 35 times its source's bytes, and the agents visit the
# files in turn (all of them, then all again), where an LRU cache would keep none: a tree is kept
# while the kept sources stay under this budget, and dropped when it is taken. The edits are
# applied (to the bytes, then to a copy of the tree) only when a later pass takes it.
# A patch of more edits than KEEP_EDITS (the translator renames a CUDA file's every runtime call) leaves
# little of the tree for tree-sitter to reuse: such a tree is not kept, the next pass parses afresh.
KEEP_BYTES = 2 << 20
KEEP_EDITS = 32
_KEPT: dict[str, _Kept] = {}
_kept_bytes = 0


def remember(unit: SourceFile, edits: Iterable[tuple[int, int, str]] = ()) -> None:
    """Keep `unit`'s tree for the next `kept` of its path: of its bytes, or of the bytes the byte
    edits of a patch (start, end, text: not overlapping) make of them, which are then re-parsed
    with tree-sitter's incremental parsing."""
    global _kept_bytes
    old = _KEPT.pop(unit.path, None)
    if old is not None:
        _kept_bytes -= len(old.old)
    edits = tuple(edits)
    if _kept_bytes + len(unit.data) > KEEP_BYTES or len(edits) > KEEP_EDITS:
        return
    _KEPT[unit.path] = _Kept(unit.data, unit.lang, unit.tree, unit._line_starts, tuple((e[0], e[1], e[2]) for e in edits))
    _kept_bytes += len(unit.data)


def kept(path: str, data: bytes) -> _Kept | None:
    """The tree `remember` kept of this path, where it is of these bytes: `SourceFile(..., base=)`
    then starts from it. The kept tree is taken (the caller remembers the file again when done)."""
    global _kept_bytes
    base = _KEPT.pop(path, None)
    if base is None:
        return None
    _kept_bytes -= len(base.old)
    return base if base.data == data else None


def forget() -> None:
    """Drop every kept tree (a benchmark's timed run starts as a fresh process would)."""
    global _kept_bytes
    _KEPT.clear()
    _kept_bytes = 0
