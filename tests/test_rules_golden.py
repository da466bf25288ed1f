"""Every registered rule against its golden examples in fixtures/rules/<ID>/.

For each rule: the docstring has Why/Before/After; `before.*` yields findings; for a rule with a
fixer, applying its edits to `before.*` gives `after.*` exactly and a second run on `after.*`
finds nothing fixable; `clean.*` finds nothing. An optional `options.json` sets PortOptions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter import rules
from porter.pysyntax import PythonFile
from porter.rules import RuleContext, TextFile, run_rules
from porter.state import PortOptions
from porter.syntax import SourceFile, lang_for

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
ALL = list(rules.load().values())


def _unit(path: Path, lang: str):
    data = path.read_bytes()
    if lang == "cuda":
        return SourceFile(path.name, data, lang_for(path.name) or "cuda")
    if lang == "triton":
        return PythonFile(path.name, data)
    return TextFile(path.name, data, lang)


def _one(folder: Path, stem: str) -> Path | None:
    found = sorted(folder.glob(f"{stem}.*"))
    return found[0] if found else None


def _ctx(folder: Path) -> RuleContext:
    opts = folder / "options.json"
    return RuleContext(PortOptions(**json.loads(opts.read_text())) if opts.exists() else PortOptions())


@pytest.mark.parametrize("rule", ALL, ids=[r.id for r in ALL])
def test_rule_golden(rule: rules.Rule) -> None:
    for section in ("Why", "Before", "After"):
        assert rule.section(section), f"{rule.id}: docstring lacks a {section}: section"
    folder = FIXTURES / rule.id
    before, after, clean = (_one(folder, s) for s in ("before", "after", "clean"))
    assert before and clean, f"{rule.id}: {folder} needs before.* and clean.*"
    ctx = _ctx(folder)

    result = run_rules(_unit(before, rule.lang), [rule], ctx, agent=rule.agent)
    assert result.findings, f"{rule.id}: no finding on {before.name}"
    if rule.fix == "safe":
        assert after, f"{rule.id}: a fixable rule needs after.*"
        assert result.patch is not None, f"{rule.id}: fixable rule produced no edit"
        assert result.patch.apply_to(before.read_bytes()).decode() == after.read_text()
        again = run_rules(_unit(after, rule.lang), [rule], ctx, agent=rule.agent)
        assert not [f for f in again.findings if f.fixable], f"{rule.id}: still fixable after the fix"
    else:
        assert result.patch is None
    quiet = run_rules(_unit(clean, rule.lang), [rule], ctx, agent=rule.agent)
    assert not quiet.findings, f"{rule.id}: findings on clean: {[str(f.location) for f in quiet.findings]}"


def test_ids_are_unique_and_well_formed() -> None:
    assert ALL, "no rules registered"
    for r in ALL:
        assert rules.RULE_ID.match(r.id)
        assert r.module.rsplit(".", 1)[-1].startswith(r.id.lower() + "_"), f"{r.module}: file name must start with {r.id.lower()}_"
