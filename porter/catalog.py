"""The rule catalog as `porter rules` and `porter explain` print it, without importing the rules.

Importing every rule module (tree-sitter, libcst, pydantic, the translation tables) costs more
than a listing may take, so the catalog's text (id, agent, severity, fix, title, docstring,
module) is kept on disk (porter.diskcache), keyed by the rule files' identities; only a changed
or new rule file makes the next listing import the registry again.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

AGENTS = ("translator", "microarch", "shim", "verifier")  # porter.rules.AGENTS, which this must not import


@dataclass(frozen=True)
class RuleDoc:
    id: str
    agent: str
    severity: str
    fix: str
    title: str
    doc: str
    module: str


def _rule_files() -> list[Path]:
    spec = importlib.util.find_spec("porter.agents")
    roots = list(spec.submodule_search_locations or []) if spec else []
    return [p for root in roots for agent in AGENTS for p in (Path(root) / agent / "rules").glob("*.py")]


def _build() -> list[dict]:
    from porter import rules

    return [{"id": r.id, "agent": r.agent, "severity": r.severity.value, "fix": r.fix, "title": r.title,
             "doc": r.doc, "module": r.module} for r in rules.load().values()]


def catalog() -> dict[str, RuleDoc]:
    """Every registered rule's documentation, by id, in id order."""
    from porter.diskcache import cached_json, files_key

    found = cached_json("catalog", files_key(_rule_files()), _build)
    return {d["id"]: RuleDoc(**d) for d in found}


def get(rule_id: str) -> RuleDoc:
    docs = catalog()
    key = rule_id.upper()
    if key not in docs:
        raise KeyError(f"no rule {rule_id!r}; `porter rules` lists them")
    return docs[key]
