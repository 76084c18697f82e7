"""A batch write waits longer than the client's timeout for its answer (a large batch is
slow to store), and a write that timed out says it may have been stored: a client that
gave up at 30 s reported "Cannot reach" for a stored batch, and its retry stored it twice.
Against a real local HTTP server that takes longer than the client's timeout to answer."""

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from gaia_memory import AsyncMemoryClient, GaiaConnectionError, MemoryClient

ANSWER_AFTER = 1.5  # seconds; the clients below give up on ordinary calls after 0.3


class SlowServer(ThreadingHTTPServer):
    daemon_threads = True
    posts: list[str]

    def handle_error(self, request, client_address) -> None:
        pass  # a client that gave up waiting: the answer has nowhere to go


class SlowHandler(BaseHTTPRequestHandler):
    server: SlowServer

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.posts.append(self.path)
        time.sleep(ANSWER_AFTER)
        items = body if isinstance(body, list) else [body]
        rows = [{"id": n, **item} for n, item in enumerate(items, start=1)]
        answer = json.dumps(rows if isinstance(body, list) else rows[0]).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def slow_server() -> Iterator[SlowServer]:
    server = SlowServer(("127.0.0.1", 0), SlowHandler)
    server.posts = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: SlowServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


TURNS = [{"session_id": "s", "role": "user", "content": f"turn {n}"} for n in range(3)]


def test_a_batch_of_turns_waits_for_its_answer_past_the_ordinary_timeout(slow_server):
    with MemoryClient(_url(slow_server), "gaia_x", timeout=0.3) as memory:
        logged = memory.log_turns(TURNS)
    assert [turn.content for turn in logged] == ["turn 0", "turn 1", "turn 2"]
    assert slow_server.posts == ["/api/v1/conversations/turns/"]  # sent once


def test_the_async_client_waits_for_a_batch_too(slow_server):
    async def log() -> list:
        async with AsyncMemoryClient(_url(slow_server), "gaia_x", timeout=0.3) as memory:
            return await memory.log_turns(TURNS)

    assert len(asyncio.run(log())) == 3
    assert len(slow_server.posts) == 1


def test_a_write_that_timed_out_says_it_may_have_been_stored(slow_server):
    with MemoryClient(_url(slow_server), "gaia_x", timeout=0.3) as memory:
        with pytest.raises(GaiaConnectionError) as timed_out:
            memory.remember("Prefers tea")
    assert "may have been stored" in str(timed_out.value)
    assert "Cannot reach" not in str(timed_out.value)


def test_a_batch_still_has_a_limit_of_its_own(slow_server):
    with MemoryClient(_url(slow_server), "gaia_x", timeout=0.2, batch_timeout=0.3) as memory:
        with pytest.raises(GaiaConnectionError, match="may have been stored"):
            memory.log_turns(TURNS)
