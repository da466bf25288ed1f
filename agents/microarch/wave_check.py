"""No partial rewrite: after microarch, each kernel's wave quantities agree with its decision.

Given a unit as the microarch agent read it and as it left it, the wave model of the source
decides each kernel (wave_model.analyse) and the model of the port says how each quantity is now
written (its `form`). The port is consistent when:

- convert64: nothing is left written for 32 lanes: no `% 32` / `& 31` / `>> 5` lane math, shuffle
  tree from 16, width-32 shuffle, 32-bit ballot holder or bit operation, `1u << lane`, 32-bit mask,
  launch argument 32 for a kernel parameter used as a shuffle width, shuffle loop bound or lane-math
  divisor (`scan<<<g, b>>>(d, 32)` beside a converted `lane = id % warpSize`);
- keep32 (with cross-lane operations): nothing acts on the whole 64-lane wave: no `warpSize`, no
  shuffle without a width of at most 32, no vote or ballot that is not read per half, no bare
  `__lane_id()`, no launch argument that passes the device's warp size; keep32 without any: its
  math is not half 32-based and half warpSize-based;
- ask: no quantity was rewritten (the kernel is left whole for a person);
- and, for keep32 and convert64, no 32-bit full mask reaches a *_sync call (ROCm 6.3+ rejects it).

`check` reports the first inconsistent expression per kernel. tests/agents/test_wave_ports.py runs
it over every fixture and pattern; bench/wave_decisions.py over real code.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from porter.agents.microarch import wave_model
from porter.agents.microarch.wave_model import Decision, Quantity
from porter.rules import RuleContext
from porter.syntax import SourceFile


@dataclass(frozen=True)
class Inconsistency:
    kernel: str
    decision: Decision
    path: str
    line: int
    expression: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: kernel {self.kernel} ({self.decision}): `{self.expression}` {self.why}"


def first_inconsistent(decision: Decision, cross: bool, after: tuple[Quantity, ...],
                       before: tuple[Quantity, ...]) -> tuple[Quantity, str] | None:
    """The first quantity of the port that contradicts the decision, and why."""
    for q in after if decision != "ask" else ():
        if q.kind == "mask" and q.form == "32":
            return q, "is a 32-bit mask of a *_sync call (ROCm 6.3+ rejects it; a 64-lane wave has 64 bits)"
    if decision == "convert64":
        for q in after:
            if q.form in ("32", "group"):
                return q, "is still written for 32 lanes in a kernel converted to the 64-lane wave"
    elif decision == "keep32" and cross:
        for q in after:
            if q.form == "64":
                return q, "is the 64-lane wave in a kernel that keeps 32-lane groups"
            if q.form == "wave":
                return q, "acts over the whole 64-lane wave in a kernel that keeps 32-lane groups"
    elif decision == "keep32":
        forms = {q.form for q in after}
        if {"32", "64"} <= forms:
            q = next(q for q in after if q.form == "64")
            return q, "is warpSize-based beside 32-based math of the same kernel"
    else:
        def key(q: Quantity) -> tuple[str, str, str]:
            return q.kind, q.form, " ".join(q.text.split())
        gone = Counter(map(key, before)) - Counter(map(key, after))
        new = Counter(map(key, after)) - Counter(map(key, before))
        if gone or new:
            changed = next(iter(new or gone))
            q = next((q for q in (*after, *before) if key(q) == changed), after[0] if after else before[0])
            return q, "was rewritten in a kernel whose wave strategy is undecided (ask): a partial rewrite"
    return None


def check(before: SourceFile, after: SourceFile, ctx_before: RuleContext | None = None,
          ctx_after: RuleContext | None = None) -> list[Inconsistency]:
    """One inconsistency per kernel whose port contradicts its decision (none: the port is whole)."""
    source = {k.kernel: k for k in wave_model.analyse(before, ctx_before).kernels}
    found = []
    for k in wave_model.analyse(after, ctx_after).kernels:
        decided = source.get(k.kernel)
        if decided is None:
            continue
        hit = first_inconsistent(decided.decision, decided.cross_lane, k.quantities, decided.quantities)
        if hit is not None:
            q, why = hit
            line = after.line_col(q.start)[0] if q.path == after.path else 0
            found.append(Inconsistency(k.kernel, decided.decision, q.path, line, " ".join(q.text.split()), why))
    return found


def check_tree(before: dict[str, bytes], after: dict[str, bytes]) -> list[Inconsistency]:
    """`check` over every C/C++/CUDA file of a tree, given as path -> bytes before and after the port.

    Headers are given to the files that include them (RuleContext.sources), as the rules saw them.
    """
    from porter.rules import HEADER_SUFFIXES
    from porter.syntax import lang_for

    def units(files: dict[str, bytes]) -> dict[str, SourceFile]:
        return {p: SourceFile(p, data, lang_for(p) or "cpp") for p, data in files.items()
                if lang_for(p) is not None}

    old, new = units(before), units(after)
    old_headers = {p: u for p, u in old.items() if any(p.endswith(s) for s in HEADER_SUFFIXES)}
    new_headers = {p: u for p, u in new.items() if any(p.endswith(s) for s in HEADER_SUFFIXES)}
    found = []
    for path in sorted(old.keys() & new.keys()):
        found += check(old[path], new[path], RuleContext(sources=old_headers, tree=before),
                       RuleContext(sources=new_headers, tree=after))
    return found
