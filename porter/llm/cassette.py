"""Record and replay: every model exchange as a JSON file, answered again without a network.

`--record DIR` wraps the provider: each exchange is written to DIR/NNNN-<task>.json with the
request, the answer and its token counts. `--replay DIR` is a provider that answers from
those files: a request is matched on its text (system and messages, `Prompt.key`), and the
same request asked again gets the next recording of it, so a run that retried is replayed
exactly. A request with no recording is a `ProviderError` that names its key and task.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from porter.llm.exchange import Completion, Prompt, Provider, ProviderError

FORMAT = 1


class Recorder:
    """A provider that passes each request to `inner` and writes the exchange to `directory`."""

    def __init__(self, inner: Provider, directory: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.directory = directory
        self._lock = threading.Lock()
        directory.mkdir(parents=True, exist_ok=True)

    def complete(self, prompt: Prompt) -> Completion:
        answer = self.inner.complete(prompt)
        with self._lock:
            seq = len(list(self.directory.glob("*.json")))
            slug = prompt.task.replace("/", "-") or "exchange"
            record = {"format": FORMAT, "key": prompt.key, "task": prompt.task,
                      "request": {"system": prompt.system, "messages": [asdict(m) for m in prompt.messages]},
                      "reply": asdict(answer)}
            (self.directory / f"{seq:04d}-{slug}.json").write_text(json.dumps(record, indent=2) + "\n")
        return answer


class Replay:
    """A provider that answers from the cassettes in `directory`, in recorded order per request."""

    def __init__(self, directory: Path) -> None:
        if not directory.is_dir():
            raise ProviderError(f"--replay {directory}: no such directory")
        self.name = f"replay:{directory}"
        self.directory = directory
        self._lock = threading.Lock()
        self._answers: dict[str, list[Completion]] = defaultdict(list)
        for path in sorted(directory.glob("*.json")):
            record = json.loads(path.read_text())
            if record.get("format") != FORMAT:
                raise ProviderError(f"{path}: cassette format {record.get('format')!r}, this porter reads {FORMAT}")
            self._answers[record["key"]].append(Completion(**record["reply"]))

    def complete(self, prompt: Prompt) -> Completion:
        with self._lock:
            queue = self._answers.get(prompt.key)
            if not queue:
                raise ProviderError(f"{self.name}: no recorded answer for this {prompt.task or 'request'} "
                                    f"(key {prompt.key[:16]}); re-record with --record")
            return queue.pop(0)

