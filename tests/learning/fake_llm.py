"""A real OpenAI-compatible HTTP server on 127.0.0.1, scripted per test.

Each request to /v1/chat/completions takes the next step of the script (the last step
repeats); every request body is recorded. Steps cover good answers and each failure
mode of docs/reliability.md.
"""

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.ports import HeldPort

Step = Callable[[BaseHTTPRequestHandler], None]


def completion(
    content: str | None,
    finish_reason: str = "stop",
    *,
    reasoning: str = "",
    parts: bool = False,
) -> bytes:
    """A chat completion body. `reasoning` goes in its own field, as vLLM's reasoning
    parser and Ollama put it; `parts` sends the content as a list of text parts."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if parts and content is not None:
        message["content"] = [{"type": "text", "text": content}]
    if reasoning:
        message["reasoning_content"] = reasoning
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        }
    ).encode()


def _send(handler, status: int, body: bytes, headers: dict | None = None, length=True) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    if length:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def answer(obj: Any) -> Step:
    """200 with the model answering `obj` as JSON."""
    return lambda h: _send(h, 200, completion(json.dumps(obj)))


def content(text: str, finish_reason: str = "stop") -> Step:
    """200 with the model answering this exact text."""
    return lambda h: _send(h, 200, completion(text, finish_reason))


def model_answer(
    text: str | None, finish_reason: str = "stop", *, reasoning: str = "", parts: bool = False
) -> Step:
    """200 with the model answering `text` the way a given model writes (see
    tests/learning/llm_answers.py): thinking field, content parts, finish reason."""
    body = completion(text, finish_reason, reasoning=reasoning, parts=parts)
    return lambda h: _send(h, 200, body)


def replying(make: Callable[[dict], str]) -> Step:
    """200 with a text computed from the request body (a stand-in that reads the prompt)."""

    def step(h) -> None:
        _send(h, 200, completion(make(h.request_body)))

    return step


def status(code: int, body: bytes = b'{"error": "x"}', headers: dict | None = None) -> Step:
    return lambda h: _send(h, code, body, headers)


def raw_200(body: bytes, length: bool = True) -> Step:
    return lambda h: _send(h, 200, body, length=length)


def silent(seconds: float = 10.0) -> Step:
    """Accept the request and never answer (within the test's horizon)."""
    return lambda h: time.sleep(seconds)


def drip(obj: Any, interval: float = 0.25) -> Step:
    """A valid answer, status line included, one byte every `interval` seconds."""

    def step(h) -> None:
        body = completion(json.dumps(obj))
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        h.close_connection = True
        for byte in head + body:
            time.sleep(interval)
            h.wfile.write(bytes([byte]))

    return step


class FakeLLM:
    def __init__(self) -> None:
        self.script: list[Step] = [answer({"operations": []})]
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                self.request_body = json.loads(self.rfile.read(size) or b"{}")
                owner.requests.append(self.request_body)
                step = owner.script.pop(0) if len(owner.script) > 1 else owner.script[0]
                try:
                    step(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def then(self, *steps: Step) -> "FakeLLM":
        self.script = list(steps)
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A local URL where nothing listens (connection refused), its port held for the test
    so that no other process's server is given it meanwhile."""
    with HeldPort() as port:
        yield f"{port.url}/v1"
