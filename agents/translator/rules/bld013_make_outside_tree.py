"""BLD013: a Makefile that reaches outside the project tree.

Why: porter ports the tree it is given. `-I../other-project/include`, `-L../../libs` or
`include ../../common/make.config` that climb above the project root name files porter never saw:
their CUDA code and build settings stay CUDA, and the port's build finds them only where the
original's sat next to it. Each such path is reported with where it points, so a person ports that
folder too (or the whole repository) before trusting the build.

Before:
    CFLAGS := -I../shared/include -O2
After:
    CFLAGS := -I../shared/include -O2

Fix safety: report only (the rule edits nothing): what lives outside the tree is not porter's to
change. Paths built from variables (`$(SDK)/include`) and absolute paths are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import make_lines, outside_tree
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Severity

_PATH_OPTIONS = ("-I", "-L", "-isystem", "-iquote")


@rule(id="BLD013", lang="makefile", severity="warning")
def make_outside_tree(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    for line in make_lines(unit.data):
        words = line.words
        is_include = line.kind == "other" and words and words[0].text in ("include", "-include", "sinclude")
        for k, w in enumerate(words):
            ref = None
            if is_include and k > 0:
                ref = w.text
            elif line.kind in ("assign", "recipe"):
                opt = next((o for o in _PATH_OPTIONS if w.text.startswith(o) and len(w.text) > len(o)), None)
                ref = w.text[len(opt):] if opt else None
            where = outside_tree(unit.path, ref) if ref else None
            if where:
                yield Hit(w.start, w.end, f"{where} is outside the ported tree: its code and build settings are "
                          "not ported; port that folder too", severity=Severity.warning)
