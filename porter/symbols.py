"""The project's symbol table: names a tree's C/C++/CUDA files define for themselves.

`project_names` reads every C/C++/CUDA file of a run once, before any rule, and collects the
macros, functions, types and variables the project defines (by spelling, not by scope: a name
defined anywhere in the tree is the project's). Rules consult it through `RuleContext.project`:
the translator never reports a project's own `cudaCheck` macro or `cublasCheck` function as a
CUDA name it cannot translate, and a name the project defines keeps one spelling in every file.

It is a lexical scan (regular expressions over code lines), run over all files in one pass;
exactness matters little, because the set only ever stops a name from being reported.
`ProjectNames` runs that pass when a rule first asks about a name: most files never need to ask
(their CUDA-looking names are in the tables, or defined in the file itself), and a run whose
files never ask skips the scan.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from porter.syntax import first_on_line

# #define NAME / #define NAME(...), where the `#` begins its line (syntax.first_on_line: as
# `^[ \t]*#...` in re.M finds them, from the `#`, which sre finds in C)
_MACRO = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
# struct/class/union/enum NAME, using NAME =, typedef ... NAME;  (also `typedef ... (*NAME)(...)`):
# what one search of these alternatives finds, `_type_names` finds from `_TYPE_PARTS`.
_TYPE = re.compile(rb"\b(?:struct|class|union|enum(?:[ \t]+class)?)[ \t]+(?:__\w+\s*(?:\(\([^)]*\)\))?\s*)?([A-Za-z_]\w*)"
                   rb"|\busing[ \t]+([A-Za-z_]\w*)[ \t]*="
                   rb"|\btypedef\b[^;{]*?\(?\s*\*?\s*\b([A-Za-z_]\w*)\s*\)?\s*(?:\([^;]*\))?\s*;"
                   rb"|\}[ \t]*([A-Za-z_]\w*)[ \t]*;")  # typedef struct { ... } NAME;
_TAGGED = rb"[ \t]+(?:__\w+\s*(?:\(\([^)]*\)\))?\s*)?([A-Za-z_]\w*)"
# `_TYPE`'s alternatives, each its keyword first and `\b` as a lookbehind after it: sre finds a
# literal with its literal scan, where `\b` first had it try the pattern at every byte (a third
# of the project scan; 87 -> 31 ms over cuda-samples' 7.8 MB, bench/results/translate-2026-12-01k.md).
_TYPE_PARTS = (
    *(re.compile(keyword + rb"(?<![A-Za-z0-9_]" + keyword + rb")" + rest) for keyword, rest in (
        (rb"struct", _TAGGED), (rb"class", _TAGGED), (rb"union", _TAGGED), (rb"enum", rb"(?:[ \t]+class)?" + _TAGGED),
        (rb"using", rb"[ \t]+([A-Za-z_]\w*)[ \t]*="),
        (rb"typedef", rb"\b[^;{]*?\(?\s*\*?\s*\b([A-Za-z_]\w*)\s*\)?\s*(?:\([^;]*\))?\s*;"))),
    re.compile(rb"\}[ \t]*([A-Za-z_]\w*)[ \t]*;"),
)
_POINTER = re.compile(rb"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")  # a function pointer: (*NAME)(...)
# A declaration or definition at the start of a statement: one or more type words, then the name,
# then `(` (a function), or `=`, `;`, `[`, `{`, `,` (a variable).
_DECLARATION = re.compile(rb"^[ \t]*((?:[A-Za-z_][\w:<>,]*[ \t\*&]+)+)\**&*([A-Za-z_]\w*)[ \t]*[(=;\[{,]", re.M)
# The same from the newline before the line (searched in b"\\n" + data): a newline first, which
# sre finds with its literal scan, where `^` had it try every byte (65 -> 45 ms on cuda-samples).
# A match lies within its line, so it never takes the next line's newline. Every loop but the
# type words' is possessive (`*+`, `++`): each is followed by a byte its class cannot hold (a type
# word's [\w:<>,] by [ \t*&], those by a letter or one of `(=;[{,`, ...), so giving bytes back to
# it never makes a match, and sre no longer tries to on every line that is no declaration; only
# the loop over the type words backtracks (its last word is the name). The same matches on 32 MB
# of real files and 30,000 fuzzed lines, in about half the time (bench/results/translate-2026-12-02-i15t.txt).
_DECLARATION_LINE = re.compile(rb"\n[ \t]*+((?:[A-Za-z_][\w:<>,]*+[ \t\*&]++)+)\**+&*+([A-Za-z_]\w*+)[ \t]*+[(=;\[{,]")
# Leading words that make a statement, not a declaration (`return cudaFoo(x);`).
_STATEMENT = frozenset({b"return", b"else", b"case", b"throw", b"new", b"delete", b"goto", b"sizeof", b"co_return",
                        b"co_await", b"co_yield", b"do", b"if", b"while", b"for", b"switch", b"not", b"and", b"or"})


def defined_names(data: bytes) -> set[str]:
    """The names one file defines or declares (macros, functions, types, variables)."""
    names = {m.group(1) for m in _MACRO.finditer(data) if first_on_line(data, m.start())}
    names |= {m.group(1) for m in _POINTER.finditer(data)}
    names.update(_type_names(data))
    # findall: each match's two groups as a tuple, made in C (a real tree has ~50 per file)
    names.update(name for words, name in _DECLARATION_LINE.findall(b"\n" + data)
                 if words.split(None, 1)[0].rstrip(b"*&") not in _STATEMENT)
    return {n.decode() for n in names if n}


def _type_names(data: bytes) -> list[bytes]:
    """The names `_TYPE.finditer(data)` captures, in order, from `_TYPE_PARTS`' searches: their
    matches by start, each taken unless it begins inside the one taken before it (one search
    resumes where its last match ended; no two alternatives can match at one byte)."""
    found = sorted((m.start(), m.end(), m.group(1)) for part in _TYPE_PARTS for m in part.finditer(data))
    names, end = [], 0
    for start, stop, name in found:
        if start >= end:
            names.append(name)
            end = stop
    return names


def project_names(files: Iterable[bytes]) -> frozenset[str]:
    """Every name some file of the project defines."""
    out: set[str] = set()
    for data in files:
        out |= defined_names(data)
    return frozenset(out)


class ProjectNames(AbstractSet[str]):
    """`project_names(files)`, computed when first asked (`name in names`), once per object.

    Pickled with the names once known, else with the files and a key: a worker process that
    needs them computes them itself, once per run, not once per map (porter.cluster hands each
    worker a map's context once per map, and a run's header waves are maps of their own): the
    names a process computed are kept by key (`_KNOWN`), for the copies later maps send."""

    def __init__(self, files: Iterable[bytes], names: frozenset[str] | None = None, key: str = "") -> None:
        if names is None and key:
            names = _KNOWN.get(key)
        self._files = () if names is not None else tuple(files)
        self._names = names
        self._key = key or os.urandom(12).hex()

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:
            self._names = project_names(self._files)
            self._files = ()
            _KNOWN[self._key] = self._names
            while len(_KNOWN) > 2:
                _KNOWN.pop(next(iter(_KNOWN)))
        return self._names

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __reduce__(self):
        return (ProjectNames, (self._files, self._names, self._key))


_KNOWN: dict[str, frozenset[str]] = {}  # names computed in this process, by ProjectNames key (the latest two runs)
