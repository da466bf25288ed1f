"""Prompts are files rendered with strict variables; every task an agent asks for exists."""

from __future__ import annotations

import pytest

from porter.llm import prompts
from porter.llm.asks import FAILURE_TASKS, HAZARD_TASKS
from porter.llm.session import REJECTED_PROMPT, SYSTEM_PROMPT

TASK_VARIABLES = {"unit", "files", "hazards", "rules", "hardware"}
REPAIR_VARIABLES = TASK_VARIABLES | {"evidence", "history"}
CONTEXT = {"unit": "k.cu", "files": [{"path": "k.cu", "lang": "cuda", "text": "int lane = threadIdx.x % 32;"}],
           "hazards": [{"rule": "WAVE001", "severity": "error", "location": "k.cu:1:5", "message": "32 lanes",
                        "snippet": "int lane = threadIdx.x % 32;"}],
           "rules": [{"id": "WAVE001", "title": "warp size as 32", "why": "CDNA has 64 lanes.", "before": "% 32",
                      "after": "% warpSize"}],
           "hardware": ["wave_size: 64 (LLVM AMDGPU)"]}


def test_every_task_the_agents_ask_for_is_a_prompt_with_the_variables_they_pass() -> None:
    shipped = set(prompts.names())
    hazard_tasks = {t for tasks in HAZARD_TASKS.values() for t in tasks.values()}
    repair_tasks = set(FAILURE_TASKS.values()) | {"repair/compile_error"}
    assert hazard_tasks | repair_tasks | {SYSTEM_PROMPT, REJECTED_PROMPT} <= shipped
    for task in hazard_tasks:
        assert prompts.variables(task) == TASK_VARIABLES, task
    for task in repair_tasks:
        assert prompts.variables(task) == REPAIR_VARIABLES, task
    assert prompts.variables(SYSTEM_PROMPT) == {"target"}
    assert prompts.variables(REJECTED_PROMPT) == {"reason"}


def test_a_prompt_renders_the_code_hazards_rule_docs_facts_and_evidence() -> None:
    text = prompts.render("repair/mismatch", **CONTEXT, evidence=["kernel laneOf: mismatch; worst at index [40]"],
                          history=["iteration 2: microarch asked repair/mismatch: patched"])
    for part in ("### k.cu", "int lane = threadIdx.x % 32;", "WAVE001 (error) at k.cu:1:5: 32 lanes",
                 "CDNA has 64 lanes.", "wave_size: 64 (LLVM AMDGPU)", "worst at index [40]",
                 "iteration 2: microarch asked repair/mismatch: patched"):
        assert part in text, part
    assert "gfx950" in prompts.render(SYSTEM_PROMPT, target="gfx950")


def test_variables_are_strict_both_ways() -> None:
    with pytest.raises(prompts.PromptError, match="hardware"):
        prompts.render("microarch/wave64", **{k: v for k, v in CONTEXT.items() if k != "hardware"})
    with pytest.raises(prompts.PromptError, match="does not use"):
        prompts.render("microarch/wave64", **CONTEXT, evidence=[])
    with pytest.raises(prompts.PromptError, match="no prompt"):
        prompts.render("microarch/no_such_task")
