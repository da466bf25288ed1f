"""The anthropic and openai providers through their real SDKs, against a server on 127.0.0.1
that answers in each API's wire format: requests are built and replies parsed for real."""

from __future__ import annotations

import pytest

from porter.llm import ProviderError
from porter.llm.exchange import Message, Prompt
from porter.llm.providers import AnthropicProvider, ModelSpec, ModelSpecError, OpenAIProvider, edit_tool, open_provider, parse_spec

EDITS = "k.cu\n<<<<<<< SEARCH\n  cudaFooBar(x);\n=======\n  hipFooBar(x);\n>>>>>>> REPLACE"
PROMPT = Prompt(system="You port CUDA.", task="repair/compile_error", max_output_tokens=777,
                messages=(Message("user", "fix k.cu"), Message("assistant", "earlier answer"),
                          Message("user", "not applied: block 1 ...")))


def test_anthropic_request_and_tool_reply(wire) -> None:
    wire.anthropic("Use hipFooBar.", EDITS)
    provider = AnthropicProvider(ModelSpec("anthropic", "claude-test", wire.url), api_key="sk-ant-test",
                                 timeout_s=5, retries=0)
    answer = provider.complete(PROMPT)
    assert answer.text == f"Use hipFooBar.\n\n{EDITS}"
    assert (answer.input_tokens, answer.output_tokens, answer.model) == (321, 45, "anthropic:claude-test")
    (seen,) = wire.seen
    assert seen.path == "/v1/messages"
    # the SDK decides the header (x-api-key, or a bearer token in recent releases); the key is the one given
    assert "sk-ant-test" in (seen.headers.get("x-api-key"), seen.headers.get("authorization", "").removeprefix("Bearer "))
    assert "anthropic-version" in seen.headers
    body = seen.body
    assert body["model"] == "claude-test" and body["max_tokens"] == 777 and body["system"] == "You port CUDA."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][0]["content"] == "fix k.cu"
    assert body["tools"] == [edit_tool()] and body["tool_choice"] == {"type": "tool", "name": "submit_edits"}


def test_anthropic_retries_an_overloaded_server_then_answers(wire) -> None:
    wire.error(529, "overloaded_error", "Overloaded", headers={"retry-after-ms": "10"})
    wire.anthropic("ok", EDITS)
    provider = AnthropicProvider(ModelSpec("anthropic", "claude-test", wire.url), api_key="k", timeout_s=5, retries=2)
    assert provider.complete(PROMPT).text.startswith("ok")
    assert len(wire.seen) == 2


def test_anthropic_error_after_retries_is_a_provider_error(wire) -> None:
    wire.error(401, "authentication_error", "invalid x-api-key")
    provider = AnthropicProvider(ModelSpec("anthropic", "claude-test", wire.url), api_key="bad", timeout_s=5, retries=0)
    with pytest.raises(ProviderError, match="invalid x-api-key"):
        provider.complete(PROMPT)


def test_openai_request_and_reply(wire) -> None:
    wire.openai("Use hipFooBar.\n" + EDITS)
    provider = OpenAIProvider(ModelSpec("openai", "gpt-test", wire.url + "/v1"), api_key="sk-test", timeout_s=5,
                              retries=0)
    answer = provider.complete(PROMPT)
    assert answer.text == "Use hipFooBar.\n" + EDITS
    assert (answer.input_tokens, answer.output_tokens, answer.model) == (210, 34, "openai:gpt-test")
    (seen,) = wire.seen
    assert seen.path == "/v1/chat/completions" and seen.headers["authorization"] == "Bearer sk-test"
    body = seen.body
    assert body["model"] == "gpt-test" and body["max_tokens"] == 777
    assert body["messages"] == [{"role": "system", "content": "You port CUDA."},
                                {"role": "user", "content": "fix k.cu"},
                                {"role": "assistant", "content": "earlier answer"},
                                {"role": "user", "content": "not applied: block 1 ..."}]


def test_openai_retries_a_rate_limit_then_answers(wire) -> None:
    wire.error(429, "rate_limit_exceeded", "slow down", headers={"retry-after-ms": "10"})
    wire.openai("fine")
    provider = OpenAIProvider(ModelSpec("openai", "gpt-test", wire.url + "/v1"), api_key="k", timeout_s=5, retries=1)
    assert provider.complete(PROMPT).text == "fine" and len(wire.seen) == 2


def test_openai_compatible_never_sends_openais_key(wire) -> None:
    wire.openai("fine")
    spec = parse_spec(f"openai-compatible:{wire.url}/v1#local-model")
    provider = open_provider(spec, timeout_s=5, retries=0, environ={"OPENAI_API_KEY": "sk-real-openai-key"})
    assert provider.complete(PROMPT).model == f"openai-compatible:{wire.url}/v1#local-model"
    assert wire.seen[0].headers["authorization"] != "Bearer sk-real-openai-key"
    assert wire.seen[0].body["model"] == "local-model"


def test_keys_come_from_the_environment() -> None:
    with pytest.raises(ModelSpecError, match="ANTHROPIC_API_KEY"):
        open_provider(parse_spec("anthropic:claude-sonnet-4-5"), timeout_s=5, retries=0, environ={})
    with pytest.raises(ModelSpecError, match="OPENAI_API_KEY"):
        open_provider(parse_spec("openai:gpt-4o"), timeout_s=5, retries=0, environ={})
    assert open_provider(parse_spec("openai:gpt-4o"), timeout_s=5, retries=0,
                         environ={"OPENAI_API_KEY": "k"}).name == "openai:gpt-4o"


@pytest.mark.parametrize(("text", "spec"), [
    ("anthropic:claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5")),
    ("openai:gpt-4o", ModelSpec("openai", "gpt-4o")),
    ("openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-coder", ModelSpec("openai-compatible", "qwen2.5-coder",
                                                                          "http://127.0.0.1:8000/v1")),
])
def test_model_specs(text: str, spec: ModelSpec) -> None:
    assert parse_spec(text) == spec and str(spec) == text


@pytest.mark.parametrize("text", ["gpt-4o", "anthropic:", "mistral:large", "openai-compatible:http://h/v1",
                                  "openai-compatible:ftp://h#m"])
def test_bad_model_specs_say_what_is_expected(text: str) -> None:
    with pytest.raises(ModelSpecError, match="--model"):
        parse_spec(text)
