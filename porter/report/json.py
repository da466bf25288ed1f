"""porter-report.json: the Report for machines (CI gates, dashboards, a later `porter report`).

Keys are sorted at every level except the top, where `schema_version` comes first so that a
reader can check the version before it reads anything else. Consumers must check it: a field
changes meaning only together with `porter.state.SCHEMA_VERSION`. The text parses back into
an equal Report (`Report.model_validate_json`).
"""

from __future__ import annotations

import json

from porter.report.model import Report

JsonValue = dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None


def render_json(report: Report) -> str:
    data = _sorted(report.model_dump(mode="json"))
    ordered = {"schema_version": data.pop("schema_version"), **data}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def _sorted(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value
