"""load_bench's routing over several servers: with person affinity one token always
reaches the same server (the one the load-balancer recipe's hash names); without, the
requests of one token spread over all of them."""

import asyncio
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench.loadbench.driver import Router, affinity_server, run

TOKENS = [f"gaia_token{n}" for n in range(12)]


class _Recorder(BaseHTTPRequestHandler):
    """Answers every request 200 and notes which token reached this server."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        token = self.headers["Authorization"].removeprefix("Bearer ")
        self.server.seen[token] += 1
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


def _load(servers: int, affinity: bool) -> tuple[list[dict[str, int]], list[int]]:
    """A second of the load over `servers` recording servers: who saw which token."""
    started = [ThreadingHTTPServer(("127.0.0.1", 0), _Recorder) for _ in range(servers)]
    for server in started:
        server.seen = defaultdict(int)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        urls = [f"http://127.0.0.1:{server.server_address[1]}" for server in started]
        results = asyncio.run(run(urls, TOKENS, 1.0, 4, affinity=affinity))
    finally:
        for server in started:
            server.shutdown()
            server.server_close()
    return [dict(server.seen) for server in started], results.per_server


def test_affinity_sends_each_token_to_the_server_its_hash_names():
    seen, per_server = _load(3, affinity=True)
    assert [sum(s.values()) for s in seen] == per_server
    for token in TOKENS:
        where = [n for n, s in enumerate(seen) if token in s]
        assert where in ([], [affinity_server(token, 3)])
    assert sum(1 for s in seen if s) > 1  # twelve people do not all hash to one server


def test_without_affinity_one_token_reaches_every_server():
    seen, per_server = _load(3, affinity=False)
    assert [sum(s.values()) for s in seen] == per_server
    assert all(per_server)
    assert max(per_server) - min(per_server) <= 1  # round robin
    assert any(all(token in s for s in seen) for token in TOKENS)


def test_the_affinity_hash_is_stable_and_covers_the_servers():
    assert [affinity_server(t, 4) for t in TOKENS] == [affinity_server(t, 4) for t in TOKENS]
    assert {affinity_server(f"gaia_t{n}", 4) for n in range(200)} == {0, 1, 2, 3}
    router = Router(4, affinity=False)
    assert [router.pick("same") for _ in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]
