"""porter-report.sarif: the open hazards as SARIF 2.1.0, for GitHub code scanning and IDE viewers.

What becomes a result: every open hazard (an error or warning finding that no fix landed for).
Fixed hazards are not results, since code scanning would show them as alerts on the original
CUDA; they are listed in `runs[0].properties.fixed`. Info findings (renames) are neither: the
markdown and json reports count them.

The driver's `rules` hold every rule that has a finding, so `ruleIndex` points into it. Paths
are relative to the source tree (`uriBaseId` SRCROOT, which `originalUriBaseIds` resolves when
the source path is absolute). Columns count code points, as `porter.state.Location` does, and
`columnKind` says so (SARIF's default is UTF-16 code units). No `partialFingerprints`: the
upload action computes them from the file, and one of ours would collide on two identical lines.

porter's own failures (`internal-error` findings) are not results about the code: they are the
invocation's `toolExecutionNotifications`, and `executionSuccessful` is false when there is one.
Files not ported and files translated token by token are listed in the run's properties.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from porter.report.model import Report, RuleCount
from porter.state import INTERNAL_ERROR, Finding, Location, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}


def render_sarif(report: Report) -> str:
    rule_index = {r.rule: i for i, r in enumerate(report.rules)}
    fixed = [f for f in report.findings if f.fixed and f.severity is not Severity.info]
    run = {
        "tool": {"driver": {
            "name": "porter",
            "version": report.porter_version,
            "semanticVersion": report.porter_version,
            "rules": [_descriptor(r) for r in report.rules],
        }},
        "columnKind": "unicodeCodePoints",
        "invocations": [{
            "executionSuccessful": not report.incomplete,
            "toolExecutionNotifications": [
                {"level": "error", "message": {"text": f"{i.unit or 'the run'}: {i.step}: {i.error} (at {i.at})"}}
                for i in report.incomplete],
        }],
        "results": [_result(f, rule_index[f.rule]) for f in report.open_findings if f.rule != INTERNAL_ERROR],
        "properties": {
            "runId": report.run_id,
            "exitCode": report.exit_code,
            "fixed": [{"ruleId": f.rule, "location": str(f.location)} for f in fixed],
            "notVerified": [{"unit": n.unit, "level": n.level, "reason": n.reason} for n in report.not_verified],
            "notPorted": [{"path": n.path, "reason": n.reason} for n in report.not_ported],
            "tokenByToken": [c.path for c in report.changes if c.flag],
        },
    }
    if report.source.startswith("/"):
        run["originalUriBaseIds"] = {"SRCROOT": {"uri": _dir_uri(report.source)}}
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _descriptor(r: RuleCount) -> dict:
    return {
        "id": r.rule,
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.why or r.title},
        "defaultConfiguration": {"level": LEVEL[r.severity]},
        "properties": {"agent": r.agent, "fix": r.fix},
    }


def _result(f: Finding, index: int) -> dict:
    return {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVEL[f.severity],
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": PurePosixPath(f.location.path).as_posix(), "uriBaseId": "SRCROOT"},
            "region": _region(f.location),
        }}],
    }


def _region(loc: Location) -> dict[str, int]:
    region = {"startLine": loc.line, "startColumn": loc.column}
    if loc.end_line is not None:
        region["endLine"] = loc.end_line
    if loc.end_column is not None:
        region["endColumn"] = loc.end_column
    return region


def _dir_uri(path: str) -> str:
    """The file URI of an absolute directory; SARIF requires a base URI to end in a slash."""
    return PurePosixPath(path).as_uri().rstrip("/") + "/"
