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
import pkgutil
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Literal

from porter.catalog import AGENTS  # one list, which `porter rules` reads without importing this module
from porter.state import Edit, Finding, Location, Patch, PortOptions, Severity, content_hash
from porter.pysyntax import PythonFile
from porter.symbols import project_names
from porter.syntax import FileText, SourceFile

FAMILIES = ("HIP", "WAVE", "LDS", "MFMA", "PTX", "TRI", "BLD", "SHIM")
RULE_ID = re.compile(rf"^({'|'.join(FAMILIES)})(\d{{3}})$")
# Ids once used and since retired stay reserved, so an old report's id never changes meaning.
RETIRED: frozenset[str] = frozenset()

Lang = Literal["cuda", "cmake", "makefile", "setup_py", "triton"]
FixKind = Literal["safe", "none"]


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
    # is not a CUDA name. `run_on_files` fills it from every file of the run before any rule.
    project: frozenset[str] = field(default=frozenset(), compare=False, hash=False)
    # The tree's C/C++/CUDA files as the run found them, by path: a header's kernels are launched,
    # and their results checked, by the files that include it (`includers`).
    tree: Mapping[str, bytes] = field(default_factory=dict, compare=False, hash=False)

    def included(self, unit: SourceFile) -> list[SourceFile]:
        """The project headers `unit` names in `#include "..."` (resolved next to it) that this run has seen."""
        if not self.sources:
            return []
        folder = posixpath.dirname(unit.path)
        found = []
        for node in unit.captures(_QUOTED_INCLUDES):
            name = unit.text(node).strip('"')
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
                   for n in other.captures(_QUOTED_INCLUDES)):
                found.append(other)
        return found


_QUOTED_INCLUDES = "(preproc_include path: (string_literal) @path)"


@dataclass(frozen=True)
class Hit:
    """One occurrence: where, what to say, and (for fixable rules) the edits that fix it."""

    start: int
    end: int
    message: str
    edits: tuple[Edit, ...] = ()
    severity: Severity | None = None  # overrides the rule's default for this occurrence
    detail: str = ""


RuleFunc = Callable[[Unit, RuleContext], Iterable[Hit]]


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


def rule(*, id: str, lang: Lang, severity: str, fix: FixKind = "none") -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule. The calling module's docstring is the rule's documentation."""

    def register(func: RuleFunc) -> RuleFunc:
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
                             func=func, doc=module.__doc__ or "", module=func.__module__)
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


def rules_for(agent: str, lang: str) -> list[Rule]:
    return [r for r in load().values() if r.agent == agent and r.lang == lang]


def get(rule_id: str) -> Rule:
    rules = load()
    key = rule_id.upper()
    if key not in rules:
        raise KeyError(f"no rule {rule_id!r}; `porter rules` lists them")
    return rules[key]


@dataclass
class RunResult:
    findings: list[Finding]
    patch: Patch | None


def run_rules(unit: Unit, rules: Iterable[Rule], ctx: RuleContext, *, agent: str) -> RunResult:
    """Run rules over one file; merge their edits into one patch.

    Edits are taken in rule-id order; an edit that overlaps one already taken is dropped and
    its finding is reported as not fixed, so two rules never fight over the same bytes. A hit
    whose whole span an earlier rule already rewrote (MFMA002 replaced the asm statement PTX001
    would report) is about code that is gone: it is recorded as fixed by that rule.

    A rule that raises is contained: its hits on this file are dropped, an `internal-error`
    finding names it, and the other rules run on.
    """
    from porter.containment import internal_error

    findings: list[Finding] = []
    taken = _Taken()
    rules = list(rules)
    if (agent in DEPTH_BOUND_AGENTS and isinstance(unit, SourceFile) and rules
            and (depth := unit.depth) > MAX_TREE_DEPTH):
        return RunResult([_too_deep(unit, agent, depth)], None)
    for r in rules:
        try:
            hits = list(r.func(unit, ctx))
        except Exception as exc:  # noqa: BLE001 - porter's own bug, reported as a finding (containment.py)
            findings.append(internal_error(unit.path, r.id, exc, agent=agent))
            continue
        for hit in hits:
            detail = hit.detail
            if (earlier := taken.covering(hit.start, hit.end)) is not None:
                fixed = True
                detail = f"rewritten by {earlier}" + (f"\n{detail}" if detail else "")
            else:
                fixed = bool(hit.edits) and taken.add(hit.edits, r.id)
            line, col = unit.line_col(hit.start)
            end_line, end_col = unit.line_col(hit.end)
            # Built without re-validation: every field comes from the registry or the file itself,
            # and a large file yields thousands of these.
            findings.append(Finding.model_construct(
                rule=r.id, severity=hit.severity or r.severity, message=hit.message,
                location=Location.model_construct(path=unit.path, line=line, column=col,
                                                  end_line=end_line, end_column=end_col),
                snippet=unit.snippet(hit.start), agent=agent,
                fixable=bool(hit.edits) or fixed, fixed=fixed, detail=detail,
            ))
    patch = None
    if taken.edits:
        ids = sorted({e.rule for e in taken.edits})
        patch = Patch(path=unit.path, base_hash=content_hash(unit.data), edits=tuple(taken.edits), agent=agent,
                      rule=",".join(ids), reason=f"{len(taken.edits)} edits by {', '.join(ids)}")
    return RunResult(findings, patch)


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
        if not all(self._free(e.start, e.end) for e in edits):
            return False
        for e in edits:
            i = bisect.bisect_left(self._starts, e.start)
            self._starts.insert(i, e.start)
            self._ends.insert(i, e.end)
            self._rules.insert(i, rule_id)
            self.edits.append(e if e.rule == rule_id else e._replace(rule=rule_id))
        return True


def run_on_files(agent: str, records, read: Callable[[str], bytes], ctx: RuleContext,
                 stages: tuple[tuple[str, ...], ...] = ()) -> tuple[list[Finding], list[Patch]]:
    """Run an agent's rules over the files they apply to (C/C++/CUDA and build files).

    `records` are the scan's FileRecords; `read` gives a file's current bytes in the output tree.
    `stages` splits the rules by family into passes: each pass sees the text the previous one
    produced (the microarch agent turns inline PTX into C++ before the wavefront rules read it),
    and yields its own patch, written against the previous pass's result.
    Headers run first, so that a unit's rules see the headers it includes as rewritten
    (`RuleContext.sources`); findings and patches come back in the order of `records`.
    """
    from porter.containment import internal_error
    from porter.state import FileKind
    from porter.syntax import lang_for

    build_lang = {FileKind.cmake: "cmake", FileKind.makefile: "makefile", FileKind.setup_py: "setup_py"}
    sources: dict[str, SourceFile] = {}
    records = list(records)
    if not ctx.project:
        ctx = replace(ctx, project=project_names(read(r.path) for r in records if r.kind in (FileKind.cuda, FileKind.cpp)))
    if not ctx.tree:
        ctx = replace(ctx, tree={r.path: read(r.path) for r in records if r.kind in (FileKind.cuda, FileKind.cpp)})
    ctx = replace(ctx, sources=sources)  # filled as files are done
    done: dict[str, tuple[list[Finding], list[Patch]]] = {}
    for record in sorted(records, key=lambda r: not _is_header(r.path)):
        findings: list[Finding] = []
        patches: list[Patch] = []
        done[record.path] = (findings, patches)
        if record.unported:
            continue  # the scan found it cannot be ported (the report says why)
        if record.kind in (FileKind.cuda, FileKind.cpp):
            lang = "cuda"
        elif record.kind in build_lang:
            lang = build_lang[record.kind]
        elif record.kind == FileKind.triton and record.parsed:
            lang = "triton"  # a module libcst cannot parse was flagged by the scan and is copied as is
        else:
            continue
        applicable = rules_for(agent, lang)
        if not applicable:
            continue
        try:
            data = read(record.path)
            for batch in _passes(applicable, stages):
                unit: Unit
                if lang == "cuda":
                    unit = SourceFile(record.path, data, lang_for(record.path) or "cpp")
                elif lang == "triton":
                    unit = PythonFile(record.path, data)
                else:
                    unit = TextFile(record.path, data, lang)
                result = run_rules(unit, batch, ctx, agent=agent)
                findings.extend(result.findings)
                if result.patch:
                    patches.append(result.patch)
                    data = result.patch.apply_to(data)
            if lang == "cuda" and _is_header(record.path):
                sources[record.path] = SourceFile(record.path, data, lang_for(record.path) or "cpp")
        except Exception as exc:  # noqa: BLE001 - reading or parsing the file failed: porter's bug, contained
            findings.append(internal_error(record.path, f"{agent} (reading and parsing)", exc, agent=agent))
    ordered = [done[r.path] for r in records if r.path in done]
    return [f for found, _ in ordered for f in found], [p for _, made in ordered for p in made]


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
