"""The report accounts for every model call: per agent calls, tokens and cost; per call its fate."""

from __future__ import annotations

import io

from rich.console import Console

from porter.report import build_report, render_console, render_json, render_markdown
from porter.report.model import Report
from porter.state import Attempt, ModelCall, ModelOptions, PortOptions


def _call(agent: str, task: str, iteration: int, outcome: str, cost: float | None, **kw) -> ModelCall:
    return ModelCall(agent=agent, task=task, unit="kernels/bad.cu", iteration=iteration, model="anthropic:claude-x",
                     input_tokens=1000, output_tokens=200, cost_usd=cost, outcome=outcome, **kw)


def _with_model(port_state):
    calls = [
        _call("microarch", "microarch/inline_ptx", 0, "edit-rejected", 0.006, detail="block 1: the SEARCH text is not in"),
        _call("microarch", "microarch/inline_ptx", 0, "patched", 0.006, round=2, detail="model: use __builtin_add",
              paths=("kernels/bad.cu",)),
        _call("translator", "repair/compile_error", 1, "patched", None, detail="model: declare x | y",
              paths=("kernels/bad.cu",)),
        ModelCall(agent="translator", task="repair/compile_error", unit="kernels/bad.cu", iteration=2,
                  model="anthropic:claude-x", outcome="error", detail="503 overloaded"),
    ]
    revert = Attempt(iteration=2, unit="kernels/bad.cu", failure_class="other", routed_to="translator",
                     reverted="model", message="model patch by translator left the unit no better: reverted")
    return port_state.model_copy(update={
        "model_calls": calls, "attempts": [*port_state.attempts, revert],
        "options": PortOptions(model=ModelOptions(spec="anthropic:claude-x", max_calls=10, record="/tape"))})


def test_per_agent_totals_and_the_fate_of_each_call(port_state, build_kwargs) -> None:
    report = build_report(_with_model(port_state), **build_kwargs)
    assert [(u.agent, u.calls, u.input_tokens, u.cost_usd, u.patched, u.rejected, u.reverted) for u in report.model_use] == [
        ("translator", 2, 1000, None, 1, 0, 1), ("microarch", 2, 2000, 0.012, 1, 1, 0), ("total", 4, 3000, None, 2, 1, 1)]
    assert [e.reverted for e in report.model_calls] == [False, False, True, False]
    assert Report.model_validate_json(render_json(report)) == report


def test_markdown_and_console_show_the_model_section(port_state, build_kwargs) -> None:
    report = build_report(_with_model(port_state), **build_kwargs)
    md = render_markdown(report)
    assert md.rstrip().split("\n## ")[-1].startswith("Model\n")
    assert "| model | `anthropic:claude-x`; budget: calls 10; recorded to `/tape` |" in md
    assert "| microarch | 2 | 2000 | 400 | 0.0120 | 1 | 1 | 0 |" in md
    assert "| total | 4 | 3000 | 600 | unknown | 2 | 1 | 1 |" in md
    assert "| 1 | translator | `repair/compile_error` | `kernels/bad.cu` | 1 | patched, reverted | 1000/200 | unknown " \
           "| model: declare x \\| y |" in md
    assert "| 2 | translator | `repair/compile_error` | `kernels/bad.cu` | 1 | error | 0/0 | unknown | 503 overloaded |" in md
    out = io.StringIO()
    render_console(report, Console(file=out, width=200))
    assert "Model calls" in out.getvalue() and "3000/600" in out.getvalue()


def test_a_run_without_a_model_has_no_model_section(port_state, build_kwargs) -> None:
    report = build_report(port_state, **build_kwargs)
    assert report.model_calls == [] and report.model_use == []
    assert "## Model" not in render_markdown(report)
