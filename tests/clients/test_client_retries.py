"""The Python client retries 429 and 503 with back-off, honouring Retry-After, against a
real local HTTP server that answers as the Gaia server does; a 401 says what to set."""

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from gaia_memory import (
    AsyncMemoryClient,
    AuthenticationError,
    MemoryClient,
    RateLimitError,
    Retry,
    ServiceUnavailableError,
)

from tests.clients.django_transport import DjangoTransport


def _error(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


HITS = json.dumps({"results": [{"id": 7, "content": "Prefers tea", "score": 0.9}]}).encode()
THROTTLED = (429, {"Retry-After": "1"}, _error("throttled", "Request was throttled."))
BUSY = (503, {}, _error("llm_unavailable", "The language model gave no usable answer."))


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True
    script: list[tuple[int, dict, bytes]]
    seen: list[tuple[float, bytes]]


class Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append((time.monotonic(), body))
        status, headers, answer = self.server.script.pop(0)
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    server = ScriptedServer(("127.0.0.1", 0), Handler)
    server.script, server.seen = [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: ScriptedServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_a_429_is_retried_after_its_retry_after(server):
    server.script = [THROTTLED, (200, {}, HITS)]
    with MemoryClient(_url(server), "gaia_t") as memory:
        assert [h.id for h in memory.recall("tea")] == [7]
    (first, body), (second, again) = server.seen
    assert second - first >= 0.95 and again == body


def test_a_503_is_retried_with_back_off_then_raised(server):
    server.script = [BUSY, BUSY, BUSY]
    retry = Retry(retries=2, base_delay=0.02)
    with MemoryClient(_url(server), "gaia_t", retry=retry) as memory:
        with pytest.raises(ServiceUnavailableError) as raised:
            memory.extract("notes from the meeting")
    assert raised.value.code == "llm_unavailable" and len(server.seen) == 3


def test_what_waiting_cannot_mend_is_raised_at_once(server):
    lasting = (503, {}, _error("llm_not_configured", "No language model is configured."))
    too_long = (429, {"Retry-After": "3600"}, _error("throttled", "Request was throttled."))
    server.script = [lasting, too_long, THROTTLED]
    with MemoryClient(_url(server), "gaia_t") as memory:
        with pytest.raises(ServiceUnavailableError):
            memory.extract("notes")
        with pytest.raises(RateLimitError) as raised:
            memory.recall("tea")
    assert raised.value.retry_after == 3600 and len(server.seen) == 2
    with MemoryClient(_url(server), "gaia_t", retry=Retry(retries=0)) as memory:
        with pytest.raises(RateLimitError):
            memory.recall("tea")


def test_the_async_client_retries_the_same(server):
    server.script = [THROTTLED, BUSY, (200, {}, HITS)]

    async def run() -> list[int]:
        async with AsyncMemoryClient(_url(server), "gaia_t", retry=Retry(base_delay=0.02)) as m:
            return [h.id for h in await m.recall("tea")]

    assert asyncio.run(run()) == [7] and len(server.seen) == 3


def test_a_401_names_gaia_token_and_the_header(db):
    client = httpx.Client(transport=DjangoTransport())
    with MemoryClient("http://testserver", "gaia_not-a-token", http_client=client) as memory:
        with pytest.raises(AuthenticationError) as raised:
            memory.recall("tea")
    message = str(raised.value)
    assert "GAIA_TOKEN" in message and "Authorization: Bearer <token>" in message
    assert raised.value.status == 401
