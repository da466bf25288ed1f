"""Suggested changes for a pull request's own CUDA: the fixes that are right on both vendors.

The port rewrites a copy of the code for ROCm (hipify renames, HIP-only calls such as the
mask-less `__shfl_down`); none of that belongs in the author's CUDA file, so it goes to the full
port on request (`/porter port`), never into a suggestion. Some rules' fixes, though, keep the
code right on NVIDIA and make it right on a 64-lane wavefront as well, and say so in their
docstrings' "Fix safety" (the test holds them to it): those are offered as ```suggestion blocks.

They are computed by running those rules, through porter's rule runner, over the PR head's
file as it is, so the edits are byte ranges of exactly the text the reviewer sees. Edits that
share a line form one region; a region becomes one suggestion whose lines are whole head lines.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from porter import rules
from porter.rules import RuleContext, run_rules
from porter.state import Edit, Finding, PortOptions
from porter.syntax import SourceFile, lang_for

# Rules whose fix is right on NVIDIA too (each one's "Fix safety" says so; tests/github checks it):
# warpSize-based loop bounds (WAVE002) and lane arithmetic (WAVE003, with WARP_SIZE chosen per
# target by the preprocessor), per-lane scratch sized for 64 lanes (WAVE005) and an XOR swizzle
# that is conflict-free on both LDS and NVIDIA shared memory (LDS003).
SOURCE_VALID_FIXES = frozenset({"WAVE002", "WAVE003", "WAVE005", "LDS003"})


@dataclass(frozen=True)
class Suggestion:
    """Replace head lines first..last of `path` with `text` (whole lines, no final newline)."""

    path: str
    first: int
    last: int
    original: str
    text: str
    findings: tuple[Finding, ...]

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule for f in self.findings})


def suggestions(checkout: Path, paths: list[str], options: PortOptions | None = None) -> list[Suggestion]:
    """The suggestions for the CUDA/C++ files `paths` (relative to `checkout`), in path and line order."""
    selected = [r for r in rules.load().values() if r.id in SOURCE_VALID_FIXES]
    ctx = RuleContext(options or PortOptions())
    out: list[Suggestion] = []
    for path in sorted(paths):
        lang = lang_for(path)
        if lang is None:
            continue
        data = (checkout / path).read_bytes()
        unit = SourceFile(path, data, lang)
        by_agent: dict[str, list] = {}
        for r in selected:
            if r.lang == "cuda":
                by_agent.setdefault(r.agent, []).append(r)
        for agent, batch in sorted(by_agent.items()):
            result = run_rules(unit, batch, ctx, agent=agent)
            if result.patch is None:
                continue
            fixed = [f for f in result.findings if f.fixed and f.rule in SOURCE_VALID_FIXES]
            out.extend(_regions(path, data, list(result.patch.edits), fixed))
    return sorted(out, key=lambda s: (s.path, s.first))


def _regions(path: str, data: bytes, edits: list[Edit], fixed: list[Finding]) -> list[Suggestion]:
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]

    def line_of(offset: int) -> int:  # 1-based
        return bisect.bisect_right(starts, offset)

    spans: list[tuple[int, int, list[Edit]]] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        first, last = line_of(e.start), line_of(max(e.end - 1, e.start))
        if spans and first <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(last, spans[-1][1]), spans[-1][2] + [e])
        else:
            spans.append((first, last, [e]))
    out = []
    for first, last, group in spans:
        begin = starts[first - 1]
        end = starts[last] - 1 if last < len(starts) else len(data)
        pieces, at = [], begin
        for e in group:
            pieces += [data[at:e.start], e.text.encode()]
            at = e.end
        pieces.append(data[at:end])
        text = b"".join(pieces).decode()
        findings = tuple(f for f in fixed if first <= f.location.line <= last)
        out.append(Suggestion(path=path, first=first, last=last, original=data[begin:end].decode(),
                              text=text.rstrip("\n"), findings=findings))
    return out
