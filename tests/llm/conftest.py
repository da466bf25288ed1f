"""Fixtures of the model tests: `wire`, a small HTTP server on 127.0.0.1 that answers in the
Anthropic and OpenAI wire formats, and `cuda_project`, a one-kernel CUDA tree to port.

The provider tests drive the real SDKs against the server, so request building and response
parsing are exercised without a network. Each reply is scripted: a queue of (status, json
body, headers); every request is kept (path, headers, json body) for the test to inspect.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict


@dataclass
class WireServer:
    port: int = 0
    replies: list[tuple[int, dict, dict[str, str]]] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reply(self, body: dict, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.replies.append((status, body, headers or {}))

    def anthropic(self, rationale: str, edits: str, *, tokens: tuple[int, int] = (321, 45)) -> None:
        self.reply(anthropic_tool_reply(rationale, edits, tokens=tokens))

    def openai(self, text: str, *, tokens: tuple[int, int] = (210, 34)) -> None:
        self.reply(openai_reply(text, tokens=tokens))

    def error(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> None:
        self.reply(error_reply(kind, message), status, headers)


def anthropic_tool_reply(rationale: str, edits: str, *, tokens: tuple[int, int]) -> dict:
    """A Messages API response whose answer is a `submit_edits` tool call."""
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "submit_edits",
                         "input": {"rationale": rationale, "edits": edits}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}}


def openai_reply(text: str, *, tokens: tuple[int, int]) -> dict:
    """A chat.completions response."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": None}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}}


def error_reply(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.fixture
def wire() -> Iterator[WireServer]:
    """A server on 127.0.0.1 at a free port, serving in a thread until the block ends."""
    state = WireServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if state.replies:
                status, payload, headers = state.replies.pop(0)
            else:
                status, payload, headers = 500, error_reply("api_error", "no scripted reply left"), {}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
