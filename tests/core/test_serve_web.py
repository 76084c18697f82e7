"""`manage.py serve` as a real process: what it says at start, and its web server with slow
clients holding connections. Requests that arrive slowly (a large declared body sent one
byte at a time, headers never finished) take no thread, so health and an authenticated
recall from another client still answer; a request not whole in GAIA_REQUEST_READ_TIMEOUT
gets 408."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.management.commands import serve as serve_command
from tests.core.test_serve import ROOT, _answers, _until
from tests.migrated import migrated_sqlite
from tests.ports import HeldPort, serves

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

SLOW = 8  # as many as serve's threads
ANSWER_WITHIN = 10.0  # generous: CI runs on two busy cores


def _manage(environ: dict[str, str], *command: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def environ(tmp_path_factory) -> dict[str, str]:
    tmp_path = tmp_path_factory.mktemp("serve")
    (tmp_path / "run").mkdir()
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    environ.update(
        GAIA_DATA_DIR=str(tmp_path),
        GAIA_LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        XDG_RUNTIME_DIR=str(tmp_path / "run"),  # where gunicorn's control socket would go
    )
    migrated_sqlite(tmp_path / "gaia.sqlite3")  # where the default settings put it
    return environ


@pytest.fixture(scope="module")
def first_start(environ) -> str:
    """What ensure_admin printed at the first start (it generated the password)."""
    return _manage(environ, "ensure_admin")


@pytest.fixture(scope="module")
def server(environ, first_start):
    """`serve --no-worker` with a short read deadline: (base URL, alice's token)."""
    tmp_path = Path(environ["GAIA_DATA_DIR"])
    made = _manage(environ, "create_api_token", "alice", "--create-user")
    token = made.strip().splitlines()[-1]
    held = HeldPort()  # no other process is given the port (tests/ports.py)
    port = held.number
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 (closed below)
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--no-worker"],
        cwd=ROOT, env={**environ, "GAIA_REQUEST_READ_TIMEOUT": "6"}, stdout=log, stderr=log,
        start_new_session=True,
    )  # fmt: skip
    log.close()
    url = f"http://127.0.0.1:{port}"
    try:
        _until(lambda: serves(port, serve.pid), "serve's own web server on the port")
        _until(lambda: _answers(f"{url}/api/v1/health/"), "the web server")
        _until(lambda: "Gaia Memory Server on" in _log(environ), "the banner")
        yield url, token
    finally:
        serve.terminate()
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
        held.release()


def _log(environ: dict[str, str]) -> str:
    return (Path(environ["GAIA_DATA_DIR"]) / "serve.log").read_text()


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=ANSWER_WITHIN)
    return sock


def _slow_body(url: str, token: str) -> socket.socket:
    sock = _connect(url)
    sock.sendall(
        b"POST /api/v1/memories/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"Authorization: Bearer {token}\r\n".encode()
        + b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"
    )
    return sock


def _slow_head(url: str) -> socket.socket:
    sock = _connect(url)
    sock.sendall(b"GET /api/v1/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return sock


def test_slow_senders_holding_connections_do_not_stop_other_clients(server):
    url, token = server
    with contextlib.ExitStack() as held:
        for _ in range(SLOW):
            held.enter_context(_slow_body(url, token))
            held.enter_context(_slow_head(url))
        time.sleep(1)  # let the server take them all

        with httpx.Client(base_url=url, timeout=ANSWER_WITHIN) as client:
            health = client.get("/api/v1/health/")
            recall = client.post(
                "/api/v1/memories/search/",
                json={"query": "coffee"},
                headers={"Authorization": f"Bearer {token}"},
            )
            stored = client.post(
                "/api/v1/memories/",
                json={"content": "Drinks coffee black"},
                headers={"Authorization": f"Bearer {token}"},
            )

    assert health.status_code == 200
    assert recall.status_code == 200, recall.text
    assert recall.json()["results"] == []
    assert stored.status_code == 201, stored.text


def _all(sock: socket.socket) -> bytes:
    sock.settimeout(60)
    answer = b""
    while chunk := sock.recv(4096):
        answer += chunk
    return answer


def test_a_request_not_whole_by_the_deadline_gets_408_and_is_closed(server):
    url, token = server
    with _slow_body(url, token) as slow, _connect(url) as idle:
        assert _all(slow).startswith(b"HTTP/1.1 408 ")
        assert _all(idle) == b""  # nothing begun, nothing answered: closed


def test_a_body_larger_than_any_the_server_accepts_is_refused_before_it_is_sent(server):
    url, token = server
    with _connect(url) as sock:
        sock.sendall(
            b"POST /api/v1/import/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + f"Authorization: Bearer {token}\r\n".encode()
            + b"Content-Length: 100000000000\r\n\r\n"
        )
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413 "), answer


def test_bodies_in_pieces_and_chunked_ones_are_answered_on_a_kept_alive_connection(server):
    url, token = server
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    body = b'{"content": "Takes the night train to Vienna"}'

    def pieces():
        yield body[:20]
        time.sleep(0.3)
        yield body[20:]

    with httpx.Client(base_url=url, timeout=ANSWER_WITHIN) as client:
        sized = {**auth, "Content-Length": str(len(body))}
        first = client.post("/api/v1/memories/", content=pieces(), headers=sized)
        chunked = client.post("/api/v1/memories/", content=pieces(), headers=auth)
        second = client.post("/api/v1/memories/", json={"content": "Likes rye"}, headers=auth)
        found = client.post("/api/v1/memories/search/", json={"query": "Vienna"}, headers=auth)

    assert first.status_code == 201, first.text
    assert chunked.status_code < 500  # framed and answered (its body is another matter)
    assert second.status_code == 201, second.text
    assert [hit["content"] for hit in found.json()["results"]][:1] == [
        "Takes the night train to Vienna"
    ]


def test_pipelined_requests_on_one_connection_are_each_answered(server):
    url, _ = server
    with _connect(url) as sock:
        request = b"GET /api/v1/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        sock.sendall(request * 3)
        answer = b""
        deadline = time.monotonic() + ANSWER_WITHIN
        while answer.count(b"HTTP/1.1 200 ") < 3 and time.monotonic() < deadline:
            answer += sock.recv(65536)
    assert answer.count(b"HTTP/1.1 200 ") == 3, answer[:500]


def test_a_client_that_waits_for_100_continue_gets_it_once_and_then_its_answer(server):
    url, token = server
    body = b'{"content": "Keeps bees"}'
    with _connect(url) as sock:
        sock.sendall(
            b"POST /api/v1/memories/ HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
            + f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n".encode()
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        )
        assert sock.recv(4096) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 201 "), answer[:300]
    assert b"100 Continue" not in answer


def test_serve_shows_the_generated_admin_password_under_its_banner(server, environ, first_start):
    password = first_start.split("Generated password", 1)[1].split(": ", 1)[1].split()[0]
    said = _log(environ)
    banner = said.index("Gaia Memory Server on http://127.0.0.1:")
    assert f"Admin login: admin / {password}" in said[banner:]


def test_serve_opens_no_gunicorn_control_socket_another_instance_could_share(server, environ):
    assert list(Path(environ["XDG_RUNTIME_DIR"]).iterdir()) == []


def test_a_busy_port_stops_serve_before_any_banner_and_names_gaia_port(environ):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--no-worker"],
            cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode != 0
    assert "Gaia Memory Server on" not in done.stdout
    assert f"127.0.0.1:{port}" in done.stderr and "GAIA_PORT=" in done.stderr


def test_serve_names_the_production_proxy_when_it_listens_beyond_this_machine(settings):
    settings.SECURE_PROXY_SSL_HEADER = None
    assert serve_command.front_notes("127.0.0.1") == []
    [note] = serve_command.front_notes("0.0.0.0")
    assert "no reverse proxy" in note and "docs/operating.md" in note
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    [note] = serve_command.front_notes("0.0.0.0")
    assert "around the proxy" in note and "127.0.0.1" in note


def test_the_documented_production_web_server_reads_requests_as_serve_does():
    doc = (ROOT / "docs" / "operating.md").read_text()
    unit = doc.split("ExecStart=/opt/gaia/.venv/bin/gunicorn", 1)[1].split("Restart=", 1)[0]
    assert "--config python:core.server.gunicorn_config" in unit and "--no-control-socket" in unit
    assert "client_body_timeout" in doc and "GAIA_REQUEST_READ_TIMEOUT" in doc


def test_a_body_spooled_to_disk_reaches_the_view_whole(server):
    url, token = server
    body = json.dumps({"content": "Likes tea", "padding": "x" * 1_500_000}).encode()
    with httpx.Client(base_url=url, timeout=ANSWER_WITHIN) as client:
        answer = client.post(
            "/api/v1/memories/",
            content=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
    # Parsed whole (a cut body would be malformed JSON): the unknown field is named.
    assert answer.status_code == 400 and "padding" in answer.text, answer.text[:300]
