"""One conversation: budget, rejected edits sent back with the reason, provider errors, cassettes."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.llm import ProviderError, ScriptedModel
from porter.llm.budget import Budget, Usage, price_of
from porter.llm.cassette import Recorder, Replay
from porter.llm.exchange import Message, Prompt
from porter.llm.providers import ModelSpecError
from porter.llm.session import Ask, Model, open_model
from porter.state import ModelCall, ModelOptions

FILE = b"void run(float* x) {\n  cudaFooBar(x);\n}\n"
GOOD = "Use the HIP call.\nk.cu\n<<<<<<< SEARCH\n  cudaFooBar(x);\n=======\n  hipFooBar(x);\n>>>>>>> REPLACE\n"
MISSES = "Try.\nk.cu\n<<<<<<< SEARCH\n  cudaFoBar(x);\n=======\n  hipFooBar(x);\n>>>>>>> REPLACE\n"


def ask(unit: str = "k.cu") -> Ask:
    return Ask(agent="translator", task="repair/compile_error", unit=unit, iteration=1, target="gfx950",
               variables={"unit": unit, "files": [{"path": unit, "lang": "cuda", "text": FILE.decode()}], "hazards": [],
                          "rules": [], "hardware": [], "evidence": ["k.cu:2:3: error: use of undeclared identifier"],
                          "history": []})


def read(path: str) -> bytes | None:
    return FILE if path == "k.cu" else None


def test_a_rejected_edit_goes_back_with_the_reason_then_the_next_answer_lands() -> None:
    script = ScriptedModel([MISSES, GOOD])
    out = Model(script, ModelOptions(price=(3.0, 15.0))).ask(ask(), [], read)
    assert [c.outcome for c in out.calls] == ["edit-rejected", "patched"] and [c.round for c in out.calls] == [1, 2]
    assert "the SEARCH text is not in k.cu" in out.calls[0].detail
    (patch,) = out.patches
    assert patch.apply_to(FILE) == FILE.replace(b"cudaFooBar", b"hipFooBar") and patch.reason == "model: Use the HIP call."
    second = script.prompts[1].messages
    assert [m.role for m in second] == ["user", "assistant", "user"] and second[1].content == MISSES
    assert "the SEARCH text is not in k.cu" in second[2].content
    assert out.calls[1].cost_usd == pytest.approx((100 * 3.0 + 50 * 15.0) / 1e6)


def test_rounds_are_bounded() -> None:
    out = Model(ScriptedModel([MISSES] * 5), ModelOptions(edit_rounds=2)).ask(ask(), [], read)
    assert [c.outcome for c in out.calls] == ["edit-rejected"] * 2 and not out.patches
    assert out.stopped == "no applicable edit in 2 answers"


def test_a_provider_error_ends_the_conversation_and_is_recorded() -> None:
    out = Model(ScriptedModel([ProviderError("openai:gpt-4o: 503 overloaded")]), ModelOptions()).ask(ask(), [], read)
    (call,) = out.calls
    assert call.outcome == "error" and "503 overloaded" in call.detail and call.input_tokens == 0


def test_the_budget_counts_earlier_calls_and_stops_before_the_next() -> None:
    earlier = [ModelCall(agent="microarch", task="microarch/wave64", unit="a.cu", iteration=0, model="scripted",
                         input_tokens=900, output_tokens=100, cost_usd=0.5, outcome="patched")]
    script = ScriptedModel([MISSES, GOOD])
    out = Model(script, ModelOptions(max_tokens=1100)).ask(ask(), earlier, read)
    # 1000 tokens spent before; the first answer brings 150 more, which spends the budget
    assert [c.outcome for c in out.calls] == ["edit-rejected"] and out.stopped == "model budget spent (1150 of 1100 tokens)"
    assert script.prompts[0].max_output_tokens == 100  # only what the budget had left
    assert Budget(calls=1).spent(Usage.of(earlier)) == "1 of 1 calls"
    assert Budget(usd=0.5).spent(Usage.of(earlier)) == "$0.5000 of $0.50"
    assert Budget(calls=2, tokens=2000, usd=1.0).spent(Usage.of(earlier)) is None


def test_prices_are_data_and_an_unpriced_dollar_budget_is_refused() -> None:
    assert price_of("anthropic:claude-sonnet-4-5").cost(1_000_000, 1_000_000) == pytest.approx(18.0)
    assert price_of("openai-compatible:http://h/v1#m") is None
    assert price_of("openai-compatible:http://h/v1#m", (1.0, 2.0)).output == 2.0
    with pytest.raises(ModelSpecError, match="--model-price"):
        open_model(ModelOptions(spec="openai-compatible:http://127.0.0.1:9/v1#m", max_usd=1.0))
    assert open_model(ModelOptions()) is None


def test_recorded_exchanges_replay_in_order_without_the_provider(tmp_path: Path) -> None:
    prompt = Prompt(system="s", messages=(Message("user", "fix k.cu"),), task="repair/compile_error")
    other = Prompt(system="s", messages=(Message("user", "fix j.cu"),), task="repair/compile_error")
    recorder = Recorder(ScriptedModel(["first", "second", "third"]), tmp_path / "tape")
    assert [recorder.complete(p).text for p in (prompt, prompt, other)] == ["first", "second", "third"]
    assert sorted(p.name for p in (tmp_path / "tape").iterdir()) == [
        "0000-repair-compile_error.json", "0001-repair-compile_error.json", "0002-repair-compile_error.json"]
    replay = Replay(tmp_path / "tape")
    third = replay.complete(other)
    assert (third.text, third.model, third.input_tokens) == ("third", "scripted", 100)
    assert [replay.complete(prompt).text for _ in range(2)] == ["first", "second"]
    with pytest.raises(ProviderError, match="no recorded answer"):
        replay.complete(prompt)
