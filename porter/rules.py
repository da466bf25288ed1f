"""The rule catalog: the `@rule` registry and the runner that turns hits into findings and patches.

A rule is one module under `agents/<agent>/rules/`, named after its id (`wave001_full_mask.py`).
Its module docstring is the catalog entry: a title line, then `Why:`, `Before:`, `After:` and
optionally `Fix safety:` sections. The function yields `Hit`s: a finding, and where the rule can
fix it, the byte edits that do. Golden examples live in `fixtures/rules/<ID>/`.

Rules see a `SourceFile` (C/C++/CUDA, with its tree-sitter tree) or a `TextFile` (build files),
and a `RuleContext` with the run's options. They never touch disk.
"""

from __future__ import annotations

import bisect
import importlib
import operator
import pkgutil
import posixpath
import re
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import chain, islice, repeat
from operator import attrgetter, eq, itemgetter
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from porter import cluster
from porter.agent_names import AGENTS
from porter.pysyntax import PythonFile
from porter.state import Edit, Finding, Location, Patch, PortOptions, Severity, content_hash
from porter.symbols import ProjectNames
from porter.syntax import FileText, LazySourceFile, SourceFile, kept, remember

if TYPE_CHECKING:
    from tree_sitter import Node

FAMILIES = ("HIP", "WAVE", "LDS", "MFMA", "PTX", "TRI", "BLD", "SHIM")
RULE_ID = re.compile(rf"^({'|'.join(FAMILIES)})(\d{{3}})$")
# Ids once used and since retired stay reserved, so an old report's id never changes meaning.
RETIRED: frozenset[str] = frozenset()

Lang = Literal["cuda", "cmake", "makefile", "setup_py", "triton"]
FixKind = Literal["safe", "none"]
Stages = tuple[tuple[str, ...], ...]

# An agent's rules run in passes by family (`run_on_files`); an agent not named runs them in one.
# microarch: inline assembly and tensor-core code become C++ first, so that the wavefront and LDS
# rules read what the port will compile (a ballot out of PTX005 is then widened by WAVE004).
STAGES: dict[str, Stages] = {"microarch": (("MFMA", "PTX"),)}


def stages(agent: str) -> Stages:
    """The passes an agent's rules run in (`STAGES`), `()` for a single pass."""
    return STAGES.get(agent, ())


@dataclass
class TextFile(FileText):
    """A build file, seen as text (CMake, Makefile, setup.py)."""

    lang: str

    @property
    def text(self) -> str:
        return self.data.decode()


Unit = SourceFile | TextFile | PythonFile


@dataclass(frozen=True)
class RuleContext:
    """What a rule may know besides the file: the run's options, and the project files it includes."""

    options: PortOptions = PortOptions()
    # The tree's C/C++/CUDA headers this agent's rules have already run over, by path, as they left
    # them. `run_on_files` runs headers before the files that include them, so a rule that follows
    # a call into `#include "ops.cuh"` sees the header's final text (`included`).
    sources: Mapping[str, SourceFile] = field(default_factory=dict, compare=False, hash=False)
    # Names the tree's C/C++/CUDA files define (porter.symbols): a project's own `cudaCheck` macro
    # is not a CUDA name. `run_on_files` fills it from every file of the run (a ProjectNames,
    # which scans them when a rule first asks).
    project: AbstractSet[str] = field(default=frozenset(), compare=False, hash=False)
    # The tree's C/C++/CUDA files as the run found them, by path: a header's kernels are launched,
    # and their results checked, by the files that include it (`includers`).
    tree: Mapping[str, bytes] = field(default_factory=dict, compare=False, hash=False)

    def included(self, unit: SourceFile) -> list[SourceFile]:
        """The project headers `unit` names in `#include "..."` (resolved next to it) that this run has seen."""
        if not self.sources:
            return []
        # The paths a file names depend on its tree alone: found once a file (a header is asked of by
        # every file that includes it, and its SourceFile is shared across the map: `_Sources`).
        names = unit.memo.get(_QUOTED_MEMO)
        if names is None:
            names = unit.memo[_QUOTED_MEMO] = tuple(unit.text(n).strip('"') for n in _quoted_include_paths(unit))
        folder = posixpath.dirname(unit.path)
        found = []
        for name in names:  # type: ignore[union-attr]
            path = posixpath.normpath(posixpath.join(folder, name))
            if path in self.sources and path != unit.path:
                found.append(self.sources[path])
        return found

    def includers(self, unit: SourceFile) -> list[SourceFile]:
        """The tree's files that name `unit` in `#include "..."`, as the run found them."""
        from porter.syntax import lang_for

        found = []
        base = posixpath.basename(unit.path).encode()
        for path, data in sorted(self.tree.items()):
            if path == unit.path or base not in data:
                continue
            lang = lang_for(path)
            if lang is None:
                continue
            other = SourceFile(path, data, lang)
            folder = posixpath.dirname(path)
            if any(posixpath.normpath(posixpath.join(folder, other.text(n).strip('"'))) == unit.path
                   for n in _quoted_include_paths(other)):
                found.append(other)
        return found


_QUOTED_INCLUDES = "(preproc_include path: (string_literal) @path)"
# The grammar's `#include` token (tree-sitter-c's `preprocessor('include')`): every preproc_include begins with it.
_INCLUDE_TOKEN = re.compile(rb"#[ \t]*include")
# The token where no `<` follows it past blanks: a path that begins with `<` is a system_lib_string,
# never a string_literal, so a file without this has no path `_QUOTED_INCLUDES` captures.
_QUOTED_CANDIDATE = re.compile(rb"#[ \t]*include(?![ \t]*<)")


def _quoted_include_paths(unit: SourceFile) -> list[Node]:
    """The path nodes `_QUOTED_INCLUDES` captures, in order, without running the query over the
    whole tree: a preproc_include begins with its `#include` token, an anonymous node, so it is
    the smallest named node over one of the token's matches, and starts there (a match inside a
    comment, a string or a `#define` body lands in that node instead). The query visited every
    node of each file that includes a project header: 0.86 s against 0.03 s over 2,852 real files
    (bench/results/translate-2026-12-02-i15t.txt), the same nodes on every one."""
    if _QUOTED_CANDIDATE.search(unit.data) is None:
        return []  # every `#include` here (if any) is `<...>`: a LazySourceFile stays unparsed
    over = unit.tree.root_node.named_descendant_for_byte_range
    found = []
    for m in _INCLUDE_TOKEN.finditer(unit.data):
        node = over(m.start(), m.end())
        if node is not None and node.type == "preproc_include" and node.start_byte == m.start():
            path = node.child_by_field_name("path")
            if path is not None and path.type == "string_literal":
                found.append(path)
    return found
_QUOTED_MEMO = "rules.quoted_includes"  # SourceFile.memo: the paths its `#include "..."` name, as written


@dataclass(frozen=True)
class Hit:
    """One occurrence: where, what to say, and (for fixable rules) the edits that fix it."""

    start: int
    end: int
    message: str
    edits: tuple[Edit, ...] = ()
    severity: Severity | None = None  # overrides the rule's default for this occurrence
    detail: str = ""


# A rule takes the one kind of unit its `lang` gives it (SourceFile, TextFile or PythonFile);
# the runner hands each rule only units of its lang, hence Any here.
RuleFunc = Callable[[Any, RuleContext], Iterable[Hit]]
RuleFuncT = TypeVar("RuleFuncT", bound=RuleFunc)
# A rule's precheck on a file's bytes (`Rule.trigger`), given the run's context.
Trigger = Callable[[bytes, RuleContext], bool]


@dataclass(frozen=True)
class Rule:
    id: str
    agent: str
    lang: Lang
    severity: Severity
    fix: FixKind
    func: RuleFunc
    doc: str
    module: str
    # A cheap test of the unit, false when the rule cannot hit it: the rule is then not run, and
    # a Triton module no rule's test passes is never parsed by libcst (porter.triton_facts).
    when: Callable[[Any], bool] | None = None
    # The same kind of test on the file's bytes, before any unit is made, with the run's context
    # (the translator's tables depend on its options): where it is false the rule is not run,
    # and where no rule of a pass has a true trigger the C/C++/CUDA file is not even parsed by
    # tree-sitter (`_rules_on_file`). None: always run.
    trigger: Trigger | None = None

    @property
    def title(self) -> str:
        return self.doc.strip().splitlines()[0].split(":", 1)[-1].strip()

    def section(self, name: str) -> str:
        """A docstring section (`Why`, `Before`, `After`, `Fix safety`), dedented; '' if absent."""
        m = re.search(rf"^{name}:[ \t]*(.*?)(?=^\w[\w ]*:|\Z)", self.doc, re.S | re.M)
        if not m:
            return ""
        lines = m.group(1).rstrip().splitlines()
        return "\n".join(line[4:] if line.startswith("    ") else line.strip() for line in lines).strip()


_REGISTRY: dict[str, Rule] = {}


def rule(*, id: str, lang: Lang, severity: str, fix: FixKind = "none",
         when: Callable[[Any], bool] | None = None,
         trigger: Trigger | None = None) -> Callable[[RuleFuncT], RuleFuncT]:
    """Register a rule. The calling module's docstring is the rule's documentation.

    `when(unit)` is an optional precheck: it must be true whenever the rule could yield a hit
    (an over-approximation: a text search, or porter.triton_facts for Triton modules).
    `trigger(data, ctx)` is one on the file's bytes (`Rule.trigger`), which spares the parse."""

    def register(func: RuleFuncT) -> RuleFuncT:
        if not RULE_ID.match(id):
            raise ValueError(f"{func.__module__}: rule id {id!r} is not FAMILY+3 digits ({', '.join(FAMILIES)})")
        if id in RETIRED:
            raise ValueError(f"{func.__module__}: rule id {id} is retired and stays reserved")
        if id in _REGISTRY:
            raise ValueError(f"duplicate rule id {id}: {_REGISTRY[id].module} and {func.__module__}")
        module = importlib.import_module(func.__module__)
        agent = func.__module__.split(".")[-3]
        if agent not in AGENTS:
            raise ValueError(f"{func.__module__}: rules live in agents/<agent>/rules/")
        _REGISTRY[id] = Rule(id=id, agent=agent, lang=lang, severity=Severity(severity), fix=fix,
                             func=func, doc=module.__doc__ or "", module=func.__module__, when=when,
                             trigger=trigger)
        return func

    return register


@cache
def load() -> dict[str, Rule]:
    """Import every rule module under porter.agents.*.rules; return the registry by id."""
    for agent in AGENTS:
        try:
            pkg = importlib.import_module(f"porter.agents.{agent}.rules")
        except ModuleNotFoundError:
            continue
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
    return dict(sorted(_REGISTRY.items()))


# A cluster worker process loads the catalog once, before its first rule run (porter.cluster).
cluster.WORKER_WARM_UP.append(load)


def rules_for(agent: str, lang: str) -> list[Rule]:
    return list(_rules_for(agent, lang))


def _rules_for(agent: str, lang: str) -> tuple[Rule, ...]:
    """`rules_for`, kept while the catalog holds the same rules: asked once per file of a run, it
    walked the catalog each time. The catalog's rules are compared whole (in C, each by identity
    first): a caller may change `load()`'s dict in place (a test makes one rule raise)."""
    rules = tuple(load().values())
    found = _BY_AGENT_LANG.get((agent, lang))
    if found is None or found[0] != rules:
        found = _BY_AGENT_LANG[(agent, lang)] = (rules, tuple(r for r in rules if r.agent == agent and r.lang == lang))
    return found[1]


def _passes_for(agent: str, lang: str, stages: Stages) -> list[list[Rule]]:
    """`_passes(rules_for(agent, lang), stages)`, kept as `_rules_for` is (read, never changed, by the caller)."""
    rules = _rules_for(agent, lang)
    found = _PASSES.get((agent, lang, stages))
    if found is None or found[0] is not rules:
        found = _PASSES[(agent, lang, stages)] = (rules, _passes(list(rules), stages))
    return found[1]


_BY_AGENT_LANG: dict[tuple[str, str], tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}
_PASSES: dict[tuple[str, str, Stages], tuple[tuple[Rule, ...], list[list[Rule]]]] = {}


def readers(unit: Unit) -> list[Rule]:
    """The rules of every agent that may hit `unit`: of its lang, and whose `when` test passes."""
    return [r for r in load().values() if r.lang == unit.lang and (r.when is None or r.when(unit))]


def get(rule_id: str) -> Rule:
    rules = load()
    key = rule_id.upper()
    if key not in rules:
        raise KeyError(f"no rule {rule_id!r}; `porter rules` lists them")
    return rules[key]


def any_of(words: Iterable[str | bytes]) -> Trigger:
    """A trigger true when any of `words` occurs anywhere in the file's bytes (code, comment or
    string alike: a necessary condition of a rule that looks for one of them as a name).

    Words of one first byte are one compiled search, a word of `LONG_WORD` bytes or more a
    substring test (`in`): over bench/translate.py's corpus sre's literal search took half of
    `in`'s time on words of 2-6 bytes and more on those of 8-17, and one search for words of
    different first bytes tried the alternatives at every byte that begins one (torch/, ATen/,
    c10/: 12 ms against 3 ms for three searches)."""
    encoded = sorted({w.encode() if isinstance(w, str) else w for w in words}, key=len, reverse=True)
    by_first: dict[bytes, list[bytes]] = {}
    for w in encoded or [b""]:  # no word: the empty search, true on any bytes (as it always was)
        by_first.setdefault(w[:1], []).append(w)
    long = tuple(g[0] for g in by_first.values() if len(g) == 1 and len(g[0]) >= LONG_WORD)
    searches = tuple(re.compile(b"|".join(map(re.escape, g))).search for g in by_first.values()
                     if not (len(g) == 1 and len(g[0]) >= LONG_WORD))

    def trigger(data: bytes, ctx: RuleContext) -> bool:
        for word in long:
            if word in data:
                return True
        for search in searches:
            if search(data) is not None:
                return True
        return False

    return trigger


LONG_WORD = 8  # bytes: from this length on, `in` beat a compiled search (bench/results/translate-2026-12-01f.md)


def triggered(rules: Iterable[Rule], data: bytes, ctx: RuleContext) -> list[Rule]:
    """The rules whose trigger (`Rule.trigger`) holds on `data`; those without one too."""
    return [r for r in rules if r.trigger is None or r.trigger(data, ctx)]


@dataclass
class RunResult:
    findings: list[Finding]
    patch: Patch | None
    data: bytes | None = None  # the file's bytes with the patch applied, where run_rules(applied=True) made them


def run_rules(unit: Unit, rules: Iterable[Rule], ctx: RuleContext, *, agent: str, triggers: bool = True,
              flat: bool = False, applied: bool = False) -> RunResult:
    """Run rules over one file; merge their edits into one patch.

    Edits are taken in rule-id order; an edit that overlaps one already taken is dropped and
    its finding is reported as not fixed, so two rules never fight over the same bytes. A hit
    whose whole span an earlier rule already rewrote (MFMA002 replaced the asm statement PTX001
    would report) is about code that is gone: it is recorded as fixed by that rule.

    A rule that raises is contained: its hits on this file are dropped, an `internal-error`
    finding names it, and the other rules run on. A rule whose trigger is false on the file
    (`Rule.trigger`) is not run; `triggers=False`: the caller has already left those out.
    `flat=True`: the rules' findings are left as `_flat`'s tuples (`_made` builds each), for a
    caller that sends them to another process. `applied=True`: the patched bytes too, where
    they can be cut from the edits as they were kept in order (`_Taken.applied`; else None):
    `RunResult.data`, what `patch.apply_to(unit.data)` gives.
    """
    from porter.containment import internal_error

    findings: list[Any] = []
    taken = _Taken()
    rules = triggered(rules, unit.data, ctx) if triggers else list(rules)
    if (agent in DEPTH_BOUND_AGENTS and isinstance(unit, SourceFile) and rules
            and (depth := unit.depth) > MAX_TREE_DEPTH):
        return RunResult([_too_deep(unit, agent, depth)], None)
    for r in rules:
        try:
            if r.when is not None and not r.when(unit):
                continue
            hits = list(r.func(unit, ctx))
        except Exception as exc:  # noqa: BLE001 - porter's own bug, reported as a finding (containment.py)
            findings.append(internal_error(unit.path, r.id, exc, agent=agent))
            continue
        # All of a rule's hits at once where none can clash (`_Taken.add_all`): a file's renames
        # are thousands of edits, each taken one by one into three sorted lists otherwise.
        bulk = len(hits) > 1 and taken.add_all(hits, r.id)
        severity = _SEVERITY_VALUES[r.severity]  # the enum's `.value` is a Python-level descriptor
        if bulk:
            # Every hit taken and fixed (`add_all`): the findings at once, placed in one call.
            rid, path = r.id, unit.path
            places = unit.places(map(_HIT_START, hits), map(_HIT_END, hits))
            findings += [(rid, _SEVERITY_VALUES[hit.severity] if hit.severity else severity, hit.message,
                          (path, line, col, end_line, end_col), snippet, agent, True, True, hit.detail)
                         for hit, (line, col, end_line, end_col, snippet) in zip(hits, places)]
            continue
        for hit in hits:
            detail = hit.detail
            if (earlier := taken.covering(hit.start, hit.end)) is not None:
                fixed = True
                detail = f"rewritten by {earlier}" + (f"\n{detail}" if detail else "")
            else:
                fixed = bool(hit.edits) and taken.add(hit.edits, r.id)
            line, col, end_line, end_col, snippet = unit.place(hit.start, hit.end)
            findings.append((r.id, _SEVERITY_VALUES[hit.severity] if hit.severity else severity, hit.message,
                             (unit.path, line, col, end_line, end_col), snippet, agent,
                             bool(hit.edits) or fixed, fixed, detail))
    if not flat:
        # Made here, without re-validation (`_made`): every field comes from the registry or the
        # file itself, and a large file yields thousands of these.
        findings = list(map(_made, findings))
    patch = None
    if taken.edits:
        ids = sorted(set(map(_FOURTH, taken.edits)))
        # Not re-validated either: validating the edits rebuilds each named tuple, one per renamed token.
        patch = Patch.model_construct(path=unit.path, base_hash=content_hash(unit.data), edits=tuple(taken.edits),
                                      agent=agent, rule=",".join(ids), reason=f"{len(taken.edits)} edits by {', '.join(ids)}")
        if applied:
            return RunResult(findings, patch, taken.applied(unit.data))
    return RunResult(findings, patch)


_new_tuple = tuple.__new__
# pydantic's BaseModel keeps an instance's state in these four slots; their descriptors set them
# directly (object.__setattr__ looked each one up along the class's bases first).
_SET_DICT, _SET_FIELDS_SET, _SET_EXTRA, _SET_PRIVATE = (
    BaseModel.__dict__[name].__set__
    for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))


# Syntax trees deeper than this are not given to the analysis rules: they climb a node's
# ancestors, and tree-sitter finds a parent by descending from the root, so a walk up a tree of
# depth d costs d^2 (a 3,000-operand expression took hours). Real code nests a few dozen deep.
# The translator's and shim's rules read tokens and calls, not ancestry, and run on any tree.
MAX_TREE_DEPTH = 400
DEPTH_BOUND_AGENTS = frozenset({"microarch"})
INPUT_LIMIT = "input-limit"  # the rule id of a finding that says porter left a file unchecked, and why


def _too_deep(unit: SourceFile, agent: str, depth: int) -> Finding:
    return Finding(rule=INPUT_LIMIT, severity=Severity.warning, agent=agent,
                   location=Location(path=unit.path, line=1),
                   message=f"the syntax tree nests {depth} deep, more than porter's {agent} rules walk "
                           f"({MAX_TREE_DEPTH}): they were not run on this file (its hazards are unchecked); "
                           "split the expression that nests this deep to have it checked")


class _Taken:
    """The edits accepted so far, kept sorted so an overlap check is a binary search."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._rules: list[str] = []
        self._texts: list[str] = []  # each taken edit's text, in the order of _starts
        self._insertions = False  # whether an insertion (an edit of no bytes) was taken

    def _free(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._starts, start)
        if i > 0 and self._ends[i - 1] > start:
            return False
        while i < len(self._starts) and (self._starts[i] < end or self._starts[i] == start):
            s, e = self._starts[i], self._ends[i]
            # Two insertions at one point would land in arbitrary order: a clash too.
            if s == e == start == end or (start < e and s < end):
                return False
            i += 1
        return True

    def covering(self, start: int, end: int) -> str | None:
        """The rule whose taken replacement spans all of [start, end), if one does."""
        i = bisect.bisect_right(self._starts, start) - 1
        while i >= 0 and self._starts[i] == start and self._ends[i] == start:
            i -= 1  # an insertion at `start` rewrote nothing of this span
        if i >= 0 and self._starts[i] < self._ends[i] and self._ends[i] >= end and end > start:
            return self._rules[i]
        return None

    def add(self, edits: tuple[Edit, ...], rule_id: str) -> bool:
        """Take all of a hit's edits, or none of them when any overlaps one already taken."""
        starts, ends, rules, texts = self._starts, self._ends, self._rules, self._texts
        if starts:
            free = self._free
            for e in edits:
                if not free(e[0], e[1]):
                    return False
        append, bisect_left = self.edits.append, bisect.bisect_left
        for e in edits:
            start = e[0]
            if start == e[1]:
                self._insertions = True
            i = bisect_left(starts, start)
            starts.insert(i, start)
            ends.insert(i, e[1])
            rules.insert(i, rule_id)
            texts.insert(i, e[2])
            append(e if e[3] == rule_id else _new_tuple(Edit, (start, e[1], e[2], rule_id)))  # Edit(...), in C
        return True

    def add_all(self, hits: list[Hit], rule_id: str) -> bool:
        """Take every edit of every one of a rule's `hits`, where `add` would take them all, hit
        after hit, with `covering` None for each: False (nothing taken) where that is not certain.

        Certain when no edit is empty (no insertion taken before either: their order among equal
        starts decides `covering`), each hit's span is one of its own edits, and no two edits of
        the hits and of those taken before overlap: then each hit's span is rewritten by nothing
        taken before it and each of its edits is free. The check and the merge are sorts and
        comparisons of whole lists, in C."""
        if self._insertions:
            return False
        groups = list(map(_HIT_EDITS, hits))
        if not all(groups):
            return False  # a hit without edits
        # Each hit's first edit is its span (a rename's first use) for all of them, compared in C;
        # otherwise hit by hit, its span among any of its edits.
        if not all(map(eq, map(_START_END, map(_FIRST, groups)), zip(map(_HIT_START, hits), map(_HIT_END, hits)))):
            for hit, edits in zip(hits, groups):
                span = (hit.start, hit.end)
                if not any(e[0] == span[0] and e[1] == span[1] for e in edits):
                    return False
        new: list[Edit] = list(chain.from_iterable(groups))
        starts, ends = list(map(_FIRST, new)), list(map(_SECOND, new))
        if not all(map(_LT, starts, ends)):
            return False  # an insertion
        spans = list(zip(self._starts, self._ends, self._rules, self._texts))
        spans += zip(starts, ends, repeat(rule_id), map(_THIRD, new))
        spans.sort()
        all_starts, all_ends = list(map(_FIRST, spans)), list(map(_SECOND, spans))
        if not all(map(_LE, all_ends, islice(all_starts, 1, None))):
            return False  # two overlap
        self._starts, self._ends, self._rules, self._texts = all_starts, all_ends, list(map(_THIRD, spans)), \
            list(map(_FOURTH, spans))
        self.edits += map(_new_tuple, repeat(Edit), zip(starts, ends, map(_THIRD, new), repeat(rule_id)))
        return True

    def applied(self, base: bytes) -> bytes | None:
        """`base` with the taken edits applied: what `Patch.apply_to` gives, without its sort, from
        the edits as they are kept (by start). None where an insertion was taken (an insertion and
        a replacement from the same byte are kept in the order taken, apply_to's is by end), or
        where the edits, by start, are not each non-empty and inside [previous end, next start]
        within the file (the edits of one hit are not checked against each other: apply_to raises
        on an overlap): the caller applies the patch."""
        starts, ends = self._starts, self._ends
        if (self._insertions or not starts or starts[0] < 0 or ends[-1] > len(base)
                or not all(map(_LT, starts, ends)) or not all(map(_LE, ends, islice(starts, 1, None)))):
            return None
        # Each edit non-empty and the next one starting at or after its end: by start they are in
        # apply_to's order (by start, then end), and the gaps between them are the bytes kept.
        gaps = list(map(base.__getitem__, map(slice, [0, *ends], [*starts, len(base)])))
        texts = self._texts
        encoded = {text: text.encode() for text in set(texts)}
        pieces = list(chain.from_iterable(zip(gaps, map(encoded.__getitem__, texts))))
        pieces.append(gaps[-1])
        return b"".join(pieces)


_FIRST, _SECOND, _THIRD, _FOURTH = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
_HIT_START, _HIT_END, _HIT_EDITS = attrgetter("start"), attrgetter("end"), attrgetter("edits")
_START_END = itemgetter(0, 1)
_LT, _LE = operator.lt, operator.le


def run_on_files(agent: str, records, read: Callable[[str], bytes], ctx: RuleContext,
                 stages: tuple[tuple[str, ...], ...] = (), *, applied: bool = True) -> tuple[list[Finding], list[Patch]]:
    """Run an agent's rules over the files they apply to (C/C++/CUDA and build files).

    `records` are the scan's FileRecords; `read` gives a file's current bytes in the output tree.
    `stages` splits the rules by family into passes: each pass sees the text the previous one
    produced (the microarch agent turns inline PTX into C++ before the wavefront rules read it),
    and yields its own patch, written against the previous pass's result.
    Headers run first, so that a unit's rules see the headers it includes as rewritten
    (`RuleContext.sources`): those that include no header of the tree through the dispatcher, the
    others then in waves through it, each as it would have run one after the other in order (it
    sees the headers before it that it may observe, as they left them); the other files then go to the run's
    dispatcher (porter.cluster: in-process, or one Ray task each, given the bytes to read and
    the headers as rewritten). Findings and patches come back in the order of `records`.

    `applied`: each file's patch is applied where its rules ran, and its result kept with it
    (`Patch.known_result`; a worker process sends the bytes back): the caller's `apply_to`, which
    lands the patches one after the other, then returns them. False for a caller that reads
    the findings alone.
    """
    from porter.state import FileKind

    records = list(records)
    c_files = [r.path for r in records if r.kind in (FileKind.cuda, FileKind.cpp)]
    tree = None
    if not ctx.tree:
        ctx = replace(ctx, tree=(tree := {path: read(path) for path in c_files}))
    if isinstance(ctx.project, frozenset) and not ctx.project:  # scanned when a rule first asks
        ctx = replace(ctx, project=ProjectNames(tree.values() if tree is not None else map(read, c_files)))
    done: dict[str, FileRules] = {}
    dispatcher = cluster.current()
    # The sources (and the project scan's copy of them) ride in every map's shared job: each
    # worker process gets them once per run, not once per header wave (cluster._Constant).
    dispatcher.constant(ctx.tree)
    hdrs = [r for r in records if _is_header(r.path) and (lang := rule_lang(r)) is not None and rules_for(agent, lang)]
    hdr_data = {r.path: _read(read, r.path) for r in hdrs}
    # A header that names no other header of the tree in any string (its quoted includes among
    # them) sees no header through RuleContext.included, whatever ran before it: those go to the
    # dispatcher first, as one map.
    alone = [r for r in hdrs if _names_no_header(r.path, hdr_data[r.path], hdr_data)]
    alone_job = _FileJob(agent, ctx, stages, {})
    results = dispatcher.map(_rules_on_file, [(r, hdr_data[r.path]) for r in alone], resources=cluster.HEADER_RULES,
                             shared=alone_job, label=lambda item: f"{agent}:{item[0].path}")
    for record, result in zip(alone, results):
        if isinstance(result, cluster.TaskFailed):  # its node was lost twice: run it here
            result = _rules_on_file(alone_job, (record, hdr_data[record.path]))
        done[record.path] = result
    # The others in waves: a header runs once every earlier header it may see (`_header_views`)
    # has run, all of a wave as one map, each seeing exactly those: what its rules can observe of
    # the headers before it is what the one-after-the-other order showed them.
    views = _header_views([r.path for r in hdrs], hdr_data, set(done))
    while len(done) < len(hdrs):
        wave = [r for r in hdrs if r.path not in done and all(p in done for p in views[r.path])]
        wave_job = _FileJob(agent, ctx, stages, _left(hdrs, done))
        items = [(r, hdr_data[r.path], views[r.path]) for r in wave]
        results = dispatcher.map(_header_on_file, items, resources=cluster.HEADER_RULES, shared=wave_job,
                                 label=lambda item: f"{agent}:{item[0].path}")
        for item, result in zip(items, results):
            if isinstance(result, cluster.TaskFailed):  # its node was lost twice: run it here
                result = _header_on_file(wave_job, item)
            done[item[0].path] = result
    headers = _left(hdrs, done)
    rest = [r for r in records if r.path not in done and (lang := rule_lang(r)) is not None and rules_for(agent, lang)]
    job = _FileJob(agent, ctx, stages, headers, uuid.uuid4().hex, data=applied)
    results = dispatcher.map(_rules_on_file, [(r, _read(read, r.path)) for r in rest], resources=cluster.RULES,
                             shared=job, label=lambda item: f"{agent}:{item[0].path}")
    for record, result in zip(rest, results):
        if isinstance(result, cluster.TaskFailed):  # its node was lost twice: run it here
            result = _rules_on_file(job, (record, _read(read, record.path)))
        done[record.path] = result
    ordered = [done[r.path] for r in records if r.path in done]
    # Those a worker sent back are made already (`_file_rules`): only the flat ones are made here.
    with cluster.quiet_gc(collect=False):
        findings = [f if type(f) is not tuple else _made(f) for out in ordered for f in out.findings]
    return findings, [p for out in ordered for p in out.patches]


@dataclass(frozen=True)
class _FileJob:
    """What every file's rule run shares: the agent, its context, its passes, the headers as rewritten."""

    agent: str
    ctx: RuleContext
    stages: tuple[tuple[str, ...], ...]
    headers: Mapping[str, bytes]
    # Names this map's parsed headers, which its files share (in one process, or one Ray worker).
    # Rules memoize what they learn on a header (`SourceFile.memo`) in the context they see; a
    # header phase's job has none, so no header's view leaks into a later context.
    token: str = ""
    # Whether the caller reads each file's bytes after the rules (FileRules.data): the headers'
    # runs do, as the files that include them see them; the others' where the caller applies
    # their patches (run_on_files(applied=True)): each patch then keeps its result.
    data: bool = True

    def __reduce__(self):  # RuleContext.sources holds syntax trees, which do not pickle: the bytes do
        return (_FileJob, (self.agent, replace(self.ctx, sources={}), self.stages, dict(self.headers), self.token,
                           self.data))


@dataclass(frozen=True)
class FileRules:
    """One file's rule run: its findings, its patches (one per pass), and its bytes after them."""

    lang: str | None
    findings: list[Finding | tuple]  # the rules' as `_flat` tuples (run_rules(flat=True)): `_made` makes each
    patches: list[Patch]
    data: bytes | None  # None where the job does not ask for them (_FileJob.data) and a patch changed them
    complete: bool = True  # False when reading or parsing it failed (contained as a finding)

    def __reduce__(self):
        """Pickled as plain tuples (a worker process or a Ray task sends it back): a file's
        findings and edits number in the hundreds, and unpickling each pydantic model and named
        tuple on its own was a tenth of the rule work, done serially in the driver."""
        return (_file_rules, (self.lang, _columns([_flat(f) for f in self.findings]),
                              [_flat_patch(p) for p in self.patches], self.data, self.complete))


_FINDING_FIELDS = ("rule", "severity", "message", "location", "snippet", "agent", "fixable", "fixed", "detail")
_LOCATION_FIELDS = ("path", "line", "column", "end_line", "end_column")


def _flat(f: Finding | tuple) -> tuple | Finding:
    """A finding run_rules built (every field set, in order) as a tuple; any other as itself."""
    if type(f) is tuple:
        return f  # already flat (run_rules(flat=True))
    loc = f.location
    if (tuple(f.__dict__) != _FINDING_FIELDS or len(f.__pydantic_fields_set__) != len(_FINDING_FIELDS)
            or type(loc) is not Location or tuple(loc.__dict__) != _LOCATION_FIELDS
            or len(loc.__pydantic_fields_set__) != len(_LOCATION_FIELDS)):
        return f
    d = f.__dict__
    return (d["rule"], d["severity"].value, d["message"], tuple(loc.__dict__.values()), d["snippet"], d["agent"],
            d["fixable"], d["fixed"], d["detail"])


def _columns(flat: list) -> list | tuple:
    """`_flat`'s findings of a file as 13 columns (rule, severity, message, the location's five
    fields, snippet, agent, fixable, fixed, detail), where every one is a tuple; else the list.
    Unpickled, a column is one tuple of a file's values, not a tuple and a location tuple per
    finding; `_file_rules` makes the findings from the columns as they stand."""
    if not flat or any(type(f) is not tuple for f in flat):
        return flat
    rule, severity, message, location, snippet, agent, fixable, fixed, detail = zip(*flat)
    return (rule, severity, message, *zip(*location), snippet, agent, fixable, fixed, detail)


_PATCH_FIELDS = tuple(Patch.model_fields)


def _flat_patch(p: Patch) -> tuple:
    """A patch as (its fields, with the edits as four columns: starts, ends, texts, rules; the
    fields it was given), for `_file_rules`; one of another shape as its model_dump and edits."""
    if (type(p) is Patch and tuple(p.__dict__) == _PATCH_FIELDS and p.__pydantic_extra__ is None
            and p.__pydantic_private__ is None and all(type(e) is Edit for e in p.edits)):
        fields = dict(p.__dict__)
        fields["edits"] = tuple(zip(*p.edits))
        return (fields, sorted(p.__pydantic_fields_set__), None)
    return (p.model_dump(exclude={"edits"}), sorted(p.__pydantic_fields_set__), list(map(tuple, p.edits)))


_SEVERITIES = {s.value: s for s in Severity}
_SEVERITY_VALUES = {s: s.value for s in Severity}


def _made(f: Finding | tuple) -> Finding:
    """The Finding a `_flat` tuple stands for (any other finding as itself)."""
    if type(f) is not tuple:
        return f  # type: ignore[return-value]
    rule, severity, message, (path, line, column, end_line, end_column), snippet, agent, fixable, fixed, detail = f
    return _made_of(rule, severity, message, path, line, column, end_line, end_column, snippet, agent, fixable,
                    fixed, detail)


def _made_of(rule: str, severity: str, message: str, path: str, line: int, column: int, end_line: int | None,
             end_column: int | None, snippet: str, agent: str, fixable: bool, fixed: bool, detail: str) -> Finding:
    """The Finding of these fields (a `_flat` tuple's, a row of `_columns`'): `model_construct` of it
    and its Location given every field in declared order, without the per-field walk (the same
    instances: each __dict__, every field set, no extra, no private state)."""
    # Written out: the driver makes one per finding of the run (12,124 on bench/translate.py's
    # corpus). The fields in _FINDING_FIELDS' and _LOCATION_FIELDS' order, as _flat read them.
    location = _NEW(Location)
    _SET_DICT(location, {"path": path, "line": line, "column": column, "end_line": end_line, "end_column": end_column})
    _SET_FIELDS_SET(location, set(_LOCATION_FIELDS))
    _SET_EXTRA(location, None)
    _SET_PRIVATE(location, None)
    finding = _NEW(Finding)
    _SET_DICT(finding, {"rule": rule, "severity": _SEVERITIES[severity], "message": message, "location": location,
                        "snippet": snippet, "agent": agent, "fixable": fixable, "fixed": fixed, "detail": detail})
    _SET_FIELDS_SET(finding, set(_FINDING_FIELDS))
    _SET_EXTRA(finding, None)
    _SET_PRIVATE(finding, None)
    return finding


_NEW = object.__new__  # what `Model.__new__(Model)` calls: BaseModel defines no __new__ of its own
for _model in (Finding, Location, Patch):
    if _model.__new__ is not _NEW or _model.__pydantic_post_init__ is not None:
        raise TypeError(f"{_model.__name__} defines __new__ or model_post_init: _made and "
                        "_file_rules make it with object.__new__ alone")


def _file_rules(lang, findings, patches, data, complete) -> FileRules:
    out = list(map(_made_of, *findings)) if type(findings) is tuple else list(map(_made, findings))
    made = []
    for fields, fields_set, edits in patches:
        if edits is None:  # `_flat_patch`'s own shape: every field, in order, the edits as columns
            fields["edits"] = tuple(map(_new_tuple, repeat(Edit), zip(*fields["edits"])))
            patch = _NEW(Patch)
            _SET_DICT(patch, fields)
            _SET_FIELDS_SET(patch, set(fields_set))
            _SET_EXTRA(patch, None)
            _SET_PRIVATE(patch, None)
        else:
            patch = Patch.model_construct(set(fields_set), **fields, edits=tuple(map(_new_tuple, repeat(Edit), edits)))
        made.append(patch)
    if made and complete and data is not None:
        made[-1].known_result(data)  # the bytes after the last pass are its patch's result
    return FileRules(lang, out, made, data, complete)


def rule_lang(record) -> str | None:
    """The rule language of a scanned file (`lang` of @rule), None for files no rule reads."""
    from porter.state import FileKind

    if record.unported:
        return None  # the scan found it cannot be ported (the report says why)
    if record.kind in (FileKind.cuda, FileKind.cpp):
        return "cuda"
    build_lang = {FileKind.cmake: "cmake", FileKind.makefile: "makefile", FileKind.setup_py: "setup_py"}
    if record.kind in build_lang:
        return build_lang[record.kind]
    if record.kind == FileKind.triton and record.parsed:
        return "triton"  # a module libcst cannot parse was flagged by the scan and is copied as is
    return None


def _read(read: Callable[[str], bytes], path: str) -> bytes | Exception:
    """A file's bytes, or what reading it raised (contained with the file's rule run)."""
    try:
        return read(path)
    except Exception as exc:  # noqa: BLE001 - reported as the file's internal-error finding
        return exc


def _rules_on_file(job: _FileJob, item) -> FileRules:
    """An agent's rules over one file, pass after pass; the headers it includes as `job` has them."""
    from porter.containment import internal_error
    from porter.syntax import lang_for

    record, data = item
    lang = rule_lang(record)
    findings: list[Finding] = []
    patches: list[Patch] = []
    ctx = replace(job.ctx, sources=_Sources(job.headers, job.token))
    try:
        if isinstance(data, Exception):
            raise data
        passes = _passes_for(job.agent, lang, job.stages) if lang else []
        for i, batch in enumerate(passes):
            batch = triggered(batch, data, ctx)
            if not batch:
                continue  # no rule of this pass could hit: the file is not parsed for it
            unit: Unit
            if lang == "cuda":
                # From the tree an earlier pass or agent left of this file, where it has one (syntax.remember).
                unit = SourceFile(record.path, data, lang_for(record.path) or "cpp", base=kept(record.path, data))
            elif lang == "triton":
                unit = PythonFile(record.path, data)
            else:
                unit = TextFile(record.path, data, lang)
            # Findings as tuples: made once where the caller reads them (`_made`), not made here and
            # flattened again to be sent back from a worker process.
            last = i == len(passes) - 1
            result = run_rules(unit, batch, ctx, agent=job.agent, triggers=False, flat=True,
                               applied=job.data or not last)
            findings.extend(result.findings)
            if isinstance(unit, SourceFile):
                remember(unit, result.patch.edits if result.patch else ())
            if result.patch:
                patches.append(result.patch)
                if job.data or not last:
                    data = result.patch.apply_to(data) if result.data is None else result.data
                    result.patch.known_result(data)  # the caller lands it: it then only writes these bytes
                else:
                    data = None
    except Exception as exc:  # noqa: BLE001 - parsing the file failed: porter's bug, contained
        findings.append(internal_error(record.path, f"{job.agent} (reading and parsing)", exc, agent=job.agent))
        return FileRules(lang, findings, patches, b"" if isinstance(data, Exception) else data, complete=False)
    return FileRules(lang, findings, patches, data)


class _Sources(Mapping[str, SourceFile]):
    """The headers by path, parsed when a rule first asks for one (most are never included), and
    kept for the file's run, or with a `token` for every file of the map that has it."""

    def __init__(self, headers: Mapping[str, bytes], token: str = "") -> None:
        self._headers = headers
        self._token = token
        self._mine: dict[str, SourceFile] = {}

    def __getitem__(self, path: str) -> SourceFile:
        from porter.syntax import lang_for

        key = (self._token, path)
        found = self._mine.get(path) or (_PARSED.get(key) if self._token else None)
        if found is None:
            # Parsed when a rule first reads its tree: the translator's rules read a header's bytes,
            # and the quoted includes it names, which need no tree where it has none (bench/results/
            # translate-2026-12-02-i15t.txt: 92 of the 598 parses on cuda-samples were headers, 57 of them without).
            found = LazySourceFile(path, self._headers[path], lang_for(path) or "cpp")
            self._mine[path] = found
            if self._token:
                _PARSED[key] = found
                while len(_PARSED) > 256:
                    _PARSED.popitem(last=False)
        return found

    def __contains__(self, path: object) -> bool:
        return path in self._headers

    def __iter__(self):
        return iter(self._headers)

    def __len__(self) -> int:
        return len(self._headers)


_PARSED: OrderedDict[tuple[str, str], SourceFile] = OrderedDict()


_STRING = re.compile(rb'"([^"\n]*)"')


def _names_no_header(path: str, data: bytes | Exception, headers: Mapping[str, object]) -> bool:
    """Whether no string in `data` resolves, as RuleContext.included resolves an `#include "..."`
    next to `path`, to another of `headers` (a superset of its includes: strings in comments too)."""
    if isinstance(data, Exception):
        return False
    folder = posixpath.dirname(path)
    for m in _STRING.finditer(data):
        target = posixpath.normpath(posixpath.join(folder, m.group(1).decode("utf-8", "replace")))
        if target != path and target in headers:
            return False
    return True


def _header_views(paths: list[str], data: Mapping[str, bytes | Exception], alone: set[str]) -> dict[str, tuple[str, ...]]:
    """For each header of `paths` (in the order they would run one after the other), the earlier
    ones whose text its rules may observe: every earlier header whose last path component a
    string in it names (RuleContext.included finds a header by the path an `#include "..."`
    resolves to, whose last component is the string's; a trigger asks whether any string names
    one of the run's headers by that component), then those the found ones name, transitively
    (a rule follows includes down). A string whose last component is empty, `.` or `..`
    (`"dir/"`) could name any: it sees every earlier header. The `alone` ones (which name no
    other header) see none. A header's wave waits on these only."""
    by_base: dict[str, list[str]] = {}
    for path in paths:
        by_base.setdefault(posixpath.basename(path), []).append(path)
    named: dict[str, set[str] | None] = {}
    for path in paths:
        text = data[path]
        if path in alone or isinstance(text, Exception):  # a failed read raises before any rule runs
            named[path] = set()
            continue
        found: set[str] | None = set()
        for m in _STRING.finditer(text):
            base = posixpath.basename(m.group(1).decode("utf-8", "replace"))
            if base in ("", ".", ".."):
                found = None
                break
            found.update(by_base.get(base, ()))
        named[path] = found
    views: dict[str, tuple[str, ...]] = {}
    for i, path in enumerate(paths):
        earlier = set(paths[:i])
        if named[path] is None:
            views[path] = tuple(paths[:i])
            continue
        seen: set[str] = set()
        todo = [p for p in named[path] if p in earlier]
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            more = named[p]
            todo.extend(q for q in (earlier if more is None else more) if q in earlier and q not in seen)
        views[path] = tuple(p for p in paths[:i] if p in seen)
    return views


def _left(hdrs, done: Mapping[str, FileRules]) -> dict[str, bytes]:
    """The headers of `hdrs` that have run, as their rules left them, in order (those a file that
    includes them sees: CUDA ones whose run completed)."""
    out = {}
    for record in hdrs:
        run = done.get(record.path)
        if run is not None and run.lang == "cuda" and run.complete and run.data is not None:
            out[record.path] = run.data
    return out


def _header_on_file(job: _FileJob, item) -> FileRules:
    """A header's rule run (`item`: record, bytes, the earlier headers it sees), given only the
    headers of `job` that `_header_views` found it may observe."""
    record, data, view = item
    mine = {p: job.headers[p] for p in view if p in job.headers}
    return _rules_on_file(replace(job, headers=mine), (record, data))


def _is_header(path: str) -> bool:
    return posixpath.splitext(path)[1].lower() in HEADER_SUFFIXES


HEADER_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc"})


def _passes(rules: list[Rule], stages: tuple[tuple[str, ...], ...]) -> list[list[Rule]]:
    """The rules of each stage (by id family), then every rule no stage named; empty passes dropped."""
    def family(r: Rule) -> str:
        return RULE_ID.match(r.id).group(1)  # type: ignore[union-attr]

    named = {f for stage in stages for f in stage}
    passes = [[r for r in rules if family(r) in stage] for stage in stages]
    passes.append([r for r in rules if family(r) not in named])
    return [p for p in passes if p]
