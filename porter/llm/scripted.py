"""A model that answers from a script: canned replies in order, for tests and demonstrations.

    model = ScriptedModel(["k.cu\n<<<<<<< SEARCH\n...", ProviderError("down")])

Each reply is the answer's text, or an exception to raise instead. `prompts` keeps every
request it was sent, so a test can check what the agents asked. Running out of replies is
a ProviderError, as a provider that stopped answering would be.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from porter.llm.exchange import Completion, Prompt, ProviderError


class ScriptedModel:
    def __init__(self, replies: Iterable[str | Exception], *, name: str = "scripted",
                 tokens: tuple[int, int] = (100, 50)) -> None:
        self.name = name
        self.prompts: list[Prompt] = []
        self._replies = list(replies)
        self._tokens = tokens
        self._lock = threading.Lock()

    @property
    def left(self) -> int:
        return len(self._replies)

    def complete(self, prompt: Prompt) -> Completion:
        with self._lock:
            self.prompts.append(prompt)
            if not self._replies:
                raise ProviderError(f"{self.name}: script exhausted after {len(self.prompts) - 1} replies")
            reply = self._replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, input_tokens=self._tokens[0], output_tokens=self._tokens[1], model=self.name)
