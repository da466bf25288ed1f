"""One pass over a file's code tokens and includes, shared by the HIP rules (HIP001-HIP007).

`classify(unit)` looks every identifier and `#include` of a file up in `tables.index()` once and
stores the result in `unit.memo`, so the seven rules read one classification instead of rescanning.
Tokens come from `SourceFile.identifiers()`: code only, never strings or comments; `#define`
bodies and tree-sitter ERROR regions are lexed too, so a file that does not parse still ports.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, itemgetter, ne, sub
from typing import NamedTuple

from porter.agents.translator.tables import DEFAULT_CHOICES, SAME_NAME_PREFIXES, Choices, Mapping, index
from porter.includes import includes as include_directives
from porter.includes import includes_torch
from porter.rules import Hit, RuleContext
from porter.state import Edit
from porter.syntax import SourceFile, first_bytes, first_on_line, word_search

_MEMO_KEY = "translator.tokens"

# Spellings the CUDA toolkit uses for its own names; an unmapped one is a HIP005 hazard.
CUDA_PREFIXES = ("cuda[A-Z]", "cu[A-Z]", "CU_", "CUDA_", "__nv_", "nv[A-Z]", "nvshmem")
CUDA_LOOKING = re.compile("^(?:" + "|".join(CUDA_PREFIXES) + ")")
MACRO_LIKE = re.compile(r"^[A-Z0-9_]+$")
_DNN_PREFIXES = ("cudnn", "CUDNN_")
_DNN = re.compile("^(?:" + "|".join(_DNN_PREFIXES) + ")")

# Names a file declares itself (its own wrappers and macros) are the project's, not CUDA's.
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")  # where the `#` begins its line


def _defined(data: bytes) -> set[str]:
    """The names of the file's `#define`s (at a line's start, as `^[ \\t]*#...` finds them in re.M)."""
    return {m.group(1).decode() for m in _DEFINE.finditer(data) if first_on_line(data, m.start())}
_DECLARED = """
(function_declarator declarator: (identifier) @n)
(preproc_def name: (identifier) @n)
(preproc_function_def name: (identifier) @n)
(init_declarator declarator: (identifier) @n)
(declaration declarator: (identifier) @n)
(parameter_declaration declarator: (identifier) @n)
(type_definition declarator: (type_identifier) @n)
(struct_specifier name: (type_identifier) @n)
(class_specifier name: (type_identifier) @n)
(enumerator name: (identifier) @n)
"""


class Token(NamedTuple):
    """A code token a table knows (a named tuple: a file has hundreds, built on every run)."""

    start: int
    end: int
    name: str
    kind: str  # "rename" | "same" (kept name, e.g. nccl) | "unsupported" | "unknown" | "dnn"
    mapping: Mapping | None = None


@dataclass(frozen=True, slots=True)
class Include:
    start: int  # the path with its delimiters: `<cuda_runtime.h>` or `"cuda_fp16.h"`
    end: int
    path: str
    angled: bool
    mapping: Mapping | None


@dataclass(frozen=True, slots=True)
class Classified:
    extension: bool  # includes torch/ATen/c10 headers: a PyTorch extension
    includes: tuple[Include, ...]
    tokens: tuple[Token, ...]


def classify(unit: SourceFile, ctx: RuleContext | None = None) -> Classified:
    """The file's tokens and includes, looked up in the tables of the run's library choices."""
    choices = Choices.of(ctx.options) if ctx is not None else DEFAULT_CHOICES
    key = _memo_key(choices)
    found = unit.memo.get(key)
    if not isinstance(found, Classified):
        found = _classify(unit, choices, ctx.project if ctx is not None else frozenset())
        unit.memo[key] = found
    return found


@cache
def _memo_key(choices: Choices) -> str:
    return f"{_MEMO_KEY}:{choices}"


@cache
def _worth_a_look(choices: Choices = DEFAULT_CHOICES) -> tuple[frozenset[str], re.Pattern[str], re.Pattern[bytes]]:
    """Names and prefixes any table could act on, and a scanner for identifiers that may be one.

    Most identifiers of a CUDA file (int, float, i, threadIdx, ...) are none of the translator's
    business. The scanner only stops at identifiers that begin like a table entry (their first
    three characters, as a trie) or like a CUDA name, so the rest never reach Python; the set
    probe and anchored regex then decide exactly.
    """
    ix = index(choices)
    names = frozenset(ix.names) | frozenset(ix.pytorch_names) | frozenset(ix.namespaces)
    names |= {key.rpartition("::")[2] for key in ix.qualified} | {"thrust"}
    prefixes = [CUDA_LOOKING.pattern.removeprefix("^"), _DNN.pattern.removeprefix("^")]
    prefixes += [re.escape(prefix) for prefix, _ in SAME_NAME_PREFIXES]
    exact = re.compile("|".join(f"(?:{p})" for p in prefixes))
    starts = _trie_regex({n[:3] for n in names})
    # `\b` where an identifier starts: every alternative begins with a word character, so it is
    # the lookbehind `(?<![A-Za-z0-9_])` (bytes: ASCII words), which sre tried a third slower.
    if not all(re.match(r"[A-Za-z0-9_]", w) for w in [*names, *(p for p, _ in SAME_NAME_PREFIXES)]):
        raise ValueError("a table name or prefix that does not begin with a word character: `\\b` is not its start")
    alternatives = f"(?:{starts}|{exact.pattern})"
    # A word whose first byte begins no alternative is refused by one class test, before sre
    # tries the alternatives one by one at its start (two fifths of the scan on CUDA code).
    firsts = first_bytes(alternatives.encode())
    guard = "" if firsts is None else "(?=[" + "".join(re.escape(chr(b)) for b in sorted(firsts)) + "])"
    scanner = re.compile(rf"\b{guard}{alternatives}[A-Za-z0-9_]*".encode())
    return names, exact, scanner




@cache
def _trigger_scanners(choices: Choices) -> tuple[frozenset[bytes], Callable[[bytes], bool]]:
    """`_worth_a_look`'s names as bytes, and whether an identifier begins with one of its prefixes
    (`word_search`: literal first, as sre scans fastest)."""
    names, _, _ = _worth_a_look(choices)
    return (frozenset(n.encode() for n in names),
            word_search([*CUDA_PREFIXES, *_DNN_PREFIXES, *(re.escape(p) for p, _ in SAME_NAME_PREFIXES)]))


# Every byte that is not a word byte ([A-Za-z0-9_]) as a space: `data.translate(_NOT_WORD).split()`
# is the file's word runs, cut in C (findall of identifiers took 2.5x as long on real trees).
_NOT_WORD = bytes(b if bytes([b]).isalnum() or b == ord("_") else ord(" ") for b in range(128)) + b" " * 128


def mentions_names(data: bytes, ctx: RuleContext) -> bool:
    """The trigger of the rules that read `classify`'s tokens (porter.rules.Rule.trigger):
    whether any identifier-like run of the bytes, code or not, is a name a table knows or is
    spelled like a CUDA name: the prefixes' search first (a CUDA file's first `cudaMalloc` ends
    it), then the file's word runs (`_NOT_WORD`) against the tables' names. Every token is a
    whole run (the scanner starts one at `\b` and takes the run to its end), so a file where it
    is false has no token: those rules yield nothing there, and need no parse."""
    choices = Choices.of(ctx.options)
    last = _LAST_MENTION[0]  # one tuple, read and replaced whole: safe across threads
    if last is not None and last[0] is data and last[1] == choices:  # five rules ask, of one file's bytes
        return last[2]
    names, prefixed = _trigger_scanners(choices)
    found = prefixed(data) or not names.isdisjoint(data.translate(_NOT_WORD).split())
    _LAST_MENTION[0] = (data, choices, found)
    return found


_LAST_MENTION: list[tuple[bytes, Choices, bool] | None] = [None]


def _trie_regex(words: set[str]) -> str:
    """A regex matching exactly `words`, factored by common prefix (cheap for the regex engine)."""
    by_head: dict[str, set[str]] = {}
    ends = False
    for w in words:
        if w:
            by_head.setdefault(w[0], set()).add(w[1:])
        else:
            ends = True
    alts = [re.escape(h) + (f"(?:{_trie_regex(rest)})" if rest != {""} else "") for h, rest in sorted(by_head.items())]
    body = "|".join(alts)
    return f"(?:{body})?" if ends and alts else body


def _classify(unit: SourceFile, choices: Choices, project: AbstractSet[str]) -> Classified:
    ix = index(choices)
    names, prefixes, scanner = _worth_a_look(choices)
    raw = include_directives(unit)
    extension = includes_torch(raw)
    includes = tuple(Include(s, e, p, a, ix.header(p, extension=extension)) for s, e, p, a in raw)
    spans = iter([(i.start, i.end) for i in includes])
    span = next(spans, None)
    data = unit.data
    colons = b"::" in data  # else no name is qualified, and the two searches below are skipped
    code = unit.code_only
    if code is not None:
        by_name = _tokens_by_name(unit, code, includes, choices, extension, project, colons)
        if by_name is not None:
            return Classified(extension, includes, by_name)
    tokens: list[Token] = []
    unknown: list[Token] = []
    plain = _plain(choices, extension)
    # The scanner straight over the code (literals and comments blanked), where it can be:
    # `identifiers`' generator in between was a third of this loop.
    found = (unit.identifiers(scanner) if code is None else
             [(m.start(), m.end(), m.group().decode()) for m in scanner.finditer(code)])
    for start, end, name in found:
        seen = plain.get(name, _UNSEEN)
        if seen is _UNSEEN:
            seen = _SKIP if name not in names and not prefixes.match(name) else _token(ix, b"", 0, len(name), name, extension)
            if seen is not None and seen is not _SKIP:
                seen = (seen.kind, seen.mapping)
            plain[name] = seen
        if seen is _SKIP:
            continue
        while span is not None and span[1] <= start:
            span = next(spans, None)
        if span is not None and span[0] <= start:
            continue  # inside an include path: HIP002 owns it
        if colons and (data.startswith(b"::", end) or data.find(b"::", max(0, start - 4), start) >= 0):
            token = _token(ix, data, start, end, name, extension)  # the qualified name decides
            if token is None:
                continue
        elif seen is None:
            continue
        else:
            token = _new_tuple(Token, (start, end, name, *seen))  # Token(...) without its Python __new__
        (unknown if token.kind == "unknown" else tokens).append(token)
    if unknown:
        # Most of a file's own CUDA-looking names are macros (CUDA_CHECK); a regex finds those
        # without a walk of the tree, and without asking the project's names (porter.symbols:
        # scanned when first asked), which only run for the names it leaves open.
        kept = set(_unknown_kept(unit, dict.fromkeys(t.name for t in unknown), project))
        if kept:
            tokens.extend(t for t in unknown if t.name in kept)
            tokens.sort(key=lambda t: t.start)
    return Classified(extension, includes, tuple(tokens))


def _tokens_by_name(unit: SourceFile, code: bytes, includes: tuple[Include, ...], choices: Choices,
                    extension: bool, project: AbstractSet[str], colons: bool = False) -> tuple[Token, ...] | None:
    """`_classify`'s tokens where the scanner runs over `code` (SourceFile.code_only): decided once
    per distinct name, the positions taken from one split of the code, the tokens made in C. Where
    the file has `::` (`colons`), a name next to one (`thrust::`, `cub::BlockReduce`, `std::min`)
    is what `_token` makes of it there, with the bytes around it, as `_classify`'s loop decides it;
    the file's other names by name. None where a scanned name starts inside an include path
    (`_classify`'s loop then decides each)."""
    parts = _splitter(choices).split(code)
    found = parts[1::2]  # the scanned names; between them, the bytes around them
    if not found:
        return ()
    offsets = list(accumulate(map(len, parts)))
    starts, ends = offsets[0:-1:2], offsets[1::2]
    for inc in includes:
        i = bisect.bisect_left(starts, inc.start)
        if i < len(starts) and starts[i] < inc.end:
            return None
    ix = index(choices)
    names, prefixes, _ = _worth_a_look(choices)
    known = _PLAIN_BYTES.setdefault((choices, extension), {})
    if len(known) > _PLAIN_MAX:
        known.clear()
    info: dict[bytes, tuple[str, str, Mapping | None]] = {}
    unknown: dict[str, bytes] = {}
    for name in dict.fromkeys(found):
        seen = known.get(name, _UNSEEN)
        if seen is _UNSEEN:
            text = name.decode()
            if text not in names and not prefixes.match(text):
                seen = _SKIP
            else:
                token = _token(ix, b"", 0, len(name), text, extension)
                seen = _NO_PLAIN if token is None else (text, token.kind, token.mapping)
            known[name] = seen
        if seen is not _SKIP and seen is not _NO_PLAIN:
            info[name] = seen  # type: ignore[assignment]
            if seen[1] == "unknown":  # type: ignore[index]
                unknown[seen[0]] = name  # type: ignore[index]
    qualified = _qualified(unit, ix, found, starts, ends, known, extension) if colons else {}
    asked = set(unknown).union(t.name for t in qualified.values() if t is not None and t.kind == "unknown")
    dropped = asked.difference(_unknown_kept(unit, asked, project)) if asked else set()
    for text in dropped.intersection(unknown):
        del info[unknown[text]]
    chosen = list(map(info.get, found))  # None where the name is no token
    for i, token in qualified.items():
        chosen[i] = None if token is None or (token.kind == "unknown" and token.name in dropped) else token[2:]
    # Token(start, end, *info) for each chosen position, in C: (start, end) + (name, kind, mapping).
    return tuple(map(_new_tuple, repeat(Token), map(add, compress(zip(starts, ends), chosen), filter(None, chosen))))


def _qualified(unit: SourceFile, ix, found: list[bytes], starts: list[int], ends: list[int],
               known: dict[bytes, object], extension: bool) -> dict[int, Token | None]:
    """By position in `found`: what `_token` makes, with the bytes around it, of each scanned name
    worth a look that a `::` touches (right after it, or within the four bytes before it)."""
    data = unit.data
    out: dict[int, Token | None] = {}
    for i, name in enumerate(found):
        if known[name] is _SKIP:
            continue
        start, end = starts[i], ends[i]
        if data.startswith(b"::", end) or data.find(b"::", max(0, start - 4), start) >= 0:
            out[i] = _token(ix, data, start, end, name.decode(), extension)
    return out


def _unknown_kept(unit: SourceFile, asked: Iterable[str], project: AbstractSet[str]) -> list[str]:
    """Of the CUDA-looking names no table knows, those the file and the project do not define: not
    its macros (a regex), not the project's names (porter.symbols, scanned when first asked), not
    its declarations (a query, only for the names left)."""
    declared = _defined(unit.data)
    left = [n for n in asked if n not in declared]
    left = [n for n in left if n not in project]
    if left:
        declared = {unit.text(n) for n in unit.captures(_DECLARED)}
        left = [n for n in left if n not in declared]
    return left


@cache
def _splitter(choices: Choices) -> re.Pattern[bytes]:
    """`_worth_a_look`'s scanner as one group, for re.split: the names and the bytes between them."""
    scanner = _worth_a_look(choices)[2]
    if scanner.groups:
        raise ValueError("the scanner has a group of its own: split would return it too")
    return re.compile(b"(" + scanner.pattern + b")")


_PLAIN_BYTES: dict[tuple[Choices, bool], dict[bytes, object]] = {}
_UNSEEN = object()
_SKIP = object()
_NO_PLAIN = object()  # worth a look, but no token where no `::` touches it (a namespace: `cub`, `thrust`)
_new_tuple = tuple.__new__
_PLAIN: dict[tuple[Choices, bool], dict[str, object]] = {}
_PLAIN_MAX = 200_000


def _plain(choices: Choices, extension: bool) -> dict[str, object]:
    """What a name is where no `::` touches it, by name: (kind, mapping), None (no token), or
    _SKIP (no table could act on it). That case depends on the name alone, and a project says
    the same names thousands of times; the cache is dropped when it grows past _PLAIN_MAX."""
    found = _PLAIN.setdefault((choices, extension), {})
    if len(found) > _PLAIN_MAX:
        found.clear()
    return found


def _token(ix, data: bytes, start: int, end: int, name: str, extension: bool) -> Token | None:
    if _DNN.match(name):
        mapping = ix.names.get(name)  # present only under --dnn miopen
        if mapping is not None and mapping.supported:
            return Token(start, end, name, "rename", mapping)
        return Token(start, end, name, "dnn")
    if data[end:end + 2] == b"::" and name in ix.namespaces:
        return Token(start, end, name, "rename", ix.namespaces[name])
    if name == "thrust" and data[end:end + 2] == b"::":
        return Token(start, end, name, "same", _THRUST)
    qualifier = _qualifier(data, start)
    if qualifier:
        mapping = ix.qualified.get(f"{qualifier}::{name}")
        if mapping is not None and (extension or mapping.family != "pytorch"):
            return Token(start, end, name, "rename", Mapping(name, mapping.hip.rpartition("::")[2],
                                                             mapping.family, source=mapping.source))
    mapping = ix.lookup(name, extension=extension)
    if mapping is None:
        return Token(start, end, name, "unknown") if CUDA_LOOKING.match(name) else None
    if not mapping.supported:
        return Token(start, end, name, "unsupported", mapping)
    return Token(start, end, name, "rename" if mapping.renames else "same", mapping)


_THRUST = Mapping("thrust", "thrust", "thrust", source="porter")
_QUALIFIER = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)\s*::\s*$")


def _qualifier(data: bytes, start: int) -> str:
    """The namespace written just before a name (`thrust::cuda` -> 'thrust'), or ''."""
    if b"::" not in data[max(0, start - 4):start]:
        return ""
    m = _QUALIFIER.search(data, max(0, start - 128), start)
    return m.group(1).decode() if m else ""


def renames(tokens: Iterable[Token], message: Callable[[Token], str]) -> Iterator[Hit]:
    """One fixable hit per distinct name, at its first use, replacing every use by its HIP name.

    A file says `cudaMalloc` a dozen times; the report wants one line for it, not twelve, and
    the translator's throughput depends on not building a finding per occurrence.
    """
    # Sorted by name in C (stable: each name's uses stay in order), so that a name's uses, and
    # their edits, are one slice; every edit is made at once, in C, each with the HIP name of
    # its name's first use (a qualified use may map otherwise: the first one decides, as before).
    ordered = sorted(tokens, key=_NAME)
    if not ordered:
        return
    names = list(map(_NAME, ordered))
    n = len(names)
    bounds = [0, *compress(range(1, n), map(ne, islice(names, 1, None), names)), n]  # where each name's uses begin
    firsts = list(map(ordered.__getitem__, islice(bounds, len(bounds) - 1)))
    hips = [first.mapping.hip for first in firsts]  # type: ignore[union-attr]
    texts = chain.from_iterable(map(repeat, hips, map(sub, islice(bounds, 1, None), bounds)))
    edits = list(map(_new_tuple, repeat(Edit), zip(map(_START, ordered), map(_END, ordered), texts, repeat(""))))
    # The names in the order of their first use.
    for start, i, j in sorted(zip(map(_START, firsts), bounds, islice(bounds, 1, None))):
        first = ordered[i]
        count = f" ({j - i} uses)" if j - i > 1 else ""
        yield Hit(start, first.end, message(first) + count, edits=tuple(edits[i:j]))


_START, _END, _NAME = itemgetter(0), itemgetter(1), itemgetter(2)

