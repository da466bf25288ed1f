"""The SARIF log: required structure by hand, and the OASIS 2.1.0 schema where jsonschema is installed.

fixtures/reports/sarif-2.1.0-rtm.5.json is the final SARIF 2.1.0 schema (the one schemastore
serves as sarif-2.1.0.json), as shipped in the npm package @microsoft/jest-sarif 1.0.0-beta.0
(MIT licence).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import porter
from porter.report import build_report, render_sarif
from porter.report.model import COMPILED_ONLY

SCHEMA = Path(__file__).resolve().parents[2] / "fixtures" / "reports" / "sarif-2.1.0-rtm.5.json"


@pytest.fixture
def log(port_state, build_kwargs) -> dict:
    return json.loads(render_sarif(build_report(port_state, **build_kwargs)))


def test_log_header(log):
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("porter", porter.__version__)
    assert "helpUri" not in json.dumps(driver)


def test_driver_rules_are_every_rule_with_a_finding(log):
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["BLD001", "HIP001", "LDS001", "MFMA001", "PTX001", "SHIM009", "WAVE001",
                                        "WAVE002"]
    wave = next(r for r in rules if r["id"] == "WAVE001")
    assert wave["shortDescription"]["text"] == "warp size hard-coded as 32."
    assert wave["fullDescription"]["text"].startswith("CDNA wavefronts have 64 lanes;")
    assert wave["defaultConfiguration"]["level"] == "error"


def test_results_are_the_open_hazards(log):
    run = log["runs"][0]
    got = sorted((r["ruleId"], r["level"]) for r in run["results"])
    assert got == [("LDS001", "warning"), ("PTX001", "error"), ("SHIM009", "warning"), ("WAVE002", "error")]
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    assert run["properties"]["fixed"] == [{"ruleId": "BLD001", "location": "CMakeLists.txt:2:1"},
                                          {"ruleId": "WAVE001", "location": "kernels/reduce.cu:11:16"}]
    assert run["properties"]["notVerified"] == [
        {"unit": "ext/fused.cu", "level": "not-checked", "reason": "needs torch/extension.h: torch is not installed"},
        {"unit": "kernels/gemm.cu", "level": "compiled-only", "reason": COMPILED_ONLY},
        {"unit": "kernels/reduce.cu", "level": "compiled-only", "reason": COMPILED_ONLY}]
    assert run["properties"]["exitCode"] == 1


def test_result_location(log):
    run = log["runs"][0]
    wave = next(r for r in run["results"] if r["ruleId"] == "WAVE002")
    (loc,) = wave["locations"]
    phys = loc["physicalLocation"]
    assert phys["artifactLocation"] == {"uri": "kernels/reduce.cu", "uriBaseId": "SRCROOT"}
    assert phys["region"] == {"startLine": 14, "startColumn": 9, "endLine": 14, "endColumn": 44}
    assert wave["message"]["text"] == "ballot result stored in 32 bits"
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///src/demo/"
    assert run["columnKind"] == "unicodeCodePoints"


def test_validates_against_the_sarif_schema(log):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
