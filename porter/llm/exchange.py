"""What goes to a model and what comes back, whoever the provider is.

A `Prompt` is a system text and a conversation of plain-text turns; a `Completion` is the
answer's text and what it cost in tokens. Providers (providers.py), the cassette recorder and
player (cassette.py) and the scripted model for tests (scripted.py) all speak these types, so
the repair loop in session.py never sees a vendor's SDK.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Literal, Protocol


class ProviderError(RuntimeError):
    """The provider gave no answer (after its retries): network, auth, rate limit, bad reply."""


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class Prompt:
    """One request. `task` (the prompt's path, e.g. "repair/compile_error") names cassettes."""

    system: str
    messages: tuple[Message, ...]
    task: str = ""
    max_output_tokens: int = 4096

    @property
    def key(self) -> str:
        """What a cassette matches on: the text sent, not the provider nor the token limit."""
        body = {"system": self.system, "messages": [asdict(m) for m in self.messages]}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    model: str  # the spec that answered, "anthropic:claude-sonnet-4-5"; a replay keeps the recorded one


class Provider(Protocol):
    """Anything that answers a Prompt: an SDK client, a cassette, a script."""

    name: str

    def complete(self, prompt: Prompt) -> Completion: ...
