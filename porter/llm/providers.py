"""The model providers behind `--model`: Anthropic, OpenAI, and OpenAI-compatible endpoints.

    --model anthropic:MODEL                    the anthropic SDK; the answer comes as a tool call
    --model openai:MODEL                       the openai SDK, chat completions
    --model openai-compatible:URL#MODEL        the openai SDK against URL (a local vLLM or Ollama)

Keys come from the environment only: ANTHROPIC_API_KEY, OPENAI_API_KEY, and for a compatible
endpoint OPENAI_COMPATIBLE_API_KEY (never OpenAI's own key, which must not travel to another
host; a local server needs none). Timeouts and retries with exponential backoff (honouring
Retry-After) are the SDKs' own. A failure that outlives the retries is a `ProviderError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from porter.llm.exchange import Completion, Prompt, ProviderError
from porter.workspace import BadInput

ProviderKind = Literal["anthropic", "openai", "openai-compatible"]
KEY_VARIABLES: dict[str, str] = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY",
                                 "openai-compatible": "OPENAI_COMPATIBLE_API_KEY"}
# Local servers (vLLM, Ollama) accept any key, but the SDK refuses to build a client without one.
_NO_KEY = "no-key"


class ModelSpecError(BadInput):
    """A --model value porter cannot read, or a provider it cannot open: bad input (exit 2)."""


@dataclass(frozen=True)
class ModelSpec:
    provider: ProviderKind
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        if self.provider == "openai-compatible":
            return f"{self.provider}:{self.base_url}#{self.model}"
        return f"{self.provider}:{self.model}"


def parse_spec(text: str) -> ModelSpec:
    """Read `anthropic:MODEL`, `openai:MODEL` or `openai-compatible:URL#MODEL`."""
    provider, sep, rest = text.partition(":")
    if not sep or not rest:
        raise ModelSpecError(f"--model {text!r}: expected anthropic:MODEL, openai:MODEL or "
                             f"openai-compatible:URL#MODEL")
    if provider in ("anthropic", "openai"):
        return ModelSpec(provider, rest)  # type: ignore[arg-type]
    if provider == "openai-compatible":
        url, sep, model = rest.rpartition("#")
        if not sep or not url.startswith(("http://", "https://")) or not model:
            raise ModelSpecError(f"--model {text!r}: expected openai-compatible:http(s)://HOST[:PORT]/PATH#MODEL")
        return ModelSpec("openai-compatible", model, url)
    raise ModelSpecError(f"--model {text!r}: unknown provider {provider!r} (anthropic, openai, openai-compatible)")


@cache
def edit_tool() -> dict:
    """The tool the Anthropic model answers through (prompts/tools/submit_edits.json)."""
    return json.loads(resources.files("porter.prompts").joinpath("tools/submit_edits.json").read_text())


class AnthropicProvider:
    """Messages API with one forced tool, `submit_edits`, whose input carries the edit blocks."""

    def __init__(self, spec: ModelSpec, *, api_key: str, timeout_s: float, retries: int) -> None:
        import anthropic

        self.name = str(spec)
        self.model = spec.model
        self._errors = anthropic.APIError
        self._client = anthropic.Anthropic(api_key=api_key, base_url=spec.base_url, timeout=timeout_s,
                                           max_retries=retries)

    def complete(self, prompt: Prompt) -> Completion:
        tool = edit_tool()
        try:
            reply = self._client.messages.create(
                model=self.model, max_tokens=prompt.max_output_tokens, system=prompt.system,
                messages=[{"role": m.role, "content": m.content} for m in prompt.messages],
                tools=[tool], tool_choice={"type": "tool", "name": tool["name"]})
        except self._errors as e:
            raise ProviderError(f"{self.name}: {e}") from e
        calls = [b for b in reply.content if b.type == "tool_use" and b.name == tool["name"]]
        if calls:
            args = calls[0].input
            text = f"{args.get('rationale', '')}\n\n{args.get('edits', '')}".strip()
        else:  # a tool call was forced, but a text answer is still an answer to parse
            text = "".join(b.text for b in reply.content if b.type == "text")
        return Completion(text=text, input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens,
                          model=self.name)


class OpenAIProvider:
    """Chat completions; the answer is the message text. Serves openai-compatible endpoints too."""

    def __init__(self, spec: ModelSpec, *, api_key: str, timeout_s: float, retries: int) -> None:
        import openai

        self.name = str(spec)
        self.model = spec.model
        self._errors = openai.APIError
        self._client = openai.OpenAI(api_key=api_key, base_url=spec.base_url, timeout=timeout_s, max_retries=retries)

    def complete(self, prompt: Prompt) -> Completion:
        messages = [{"role": "system", "content": prompt.system}]
        messages += [{"role": m.role, "content": m.content} for m in prompt.messages]
        try:
            reply = self._client.chat.completions.create(model=self.model, messages=messages,
                                                         max_tokens=prompt.max_output_tokens)
        except self._errors as e:
            raise ProviderError(f"{self.name}: {e}") from e
        if not reply.choices:
            raise ProviderError(f"{self.name}: the reply has no choices")
        usage = reply.usage
        return Completion(text=reply.choices[0].message.content or "",
                          input_tokens=usage.prompt_tokens if usage else 0,
                          output_tokens=usage.completion_tokens if usage else 0, model=self.name)


def open_provider(spec: ModelSpec, *, timeout_s: float, retries: int,
                  environ: dict[str, str] | None = None) -> AnthropicProvider | OpenAIProvider:
    """A client for `spec`, its key read from the environment."""
    env = os.environ if environ is None else environ
    variable = KEY_VARIABLES[spec.provider]
    key = env.get(variable, "")
    if not key and spec.provider != "openai-compatible":
        raise ModelSpecError(f"--model {spec}: set {variable} in the environment (keys are read from nowhere else)")
    kind = AnthropicProvider if spec.provider == "anthropic" else OpenAIProvider
    return kind(spec, api_key=key or _NO_KEY, timeout_s=timeout_s, retries=retries)
