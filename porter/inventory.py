"""`porter scan`: inventory and hazards of a source tree, read only.

Runs the scan and every agent's detectors over the source as it is, without applying any fix,
so a team can see what porting will meet before it ports.
"""

from __future__ import annotations

from pathlib import Path

from porter.encoding import read_view
from porter.rules import RuleContext, run_on_files, stages
from porter.scan import Inventory, scan_tree
from porter.state import Finding, Severity
from porter.workspace import tree_files


def inventory(root: Path) -> Inventory:
    return scan_tree(root, tree_files(root)[0])


def hazards(root: Path, inv: Inventory) -> list[Finding]:
    """Findings above info level from every agent's rules, in file order."""
    found: list[Finding] = []
    for agent in ("translator", "microarch", "shim"):
        findings, _ = run_on_files(agent, inv.files, lambda rel: read_view(root / rel)[0], RuleContext(), stages(agent),
                                   applied=False)
        found.extend(f for f in findings if f.severity != Severity.info)
    return sorted(found, key=lambda f: (f.location.path, f.location.line, f.location.column, f.rule))
