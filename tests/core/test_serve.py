"""`manage.py serve` as real processes: a stop signal reaches the web server and the worker,
serve waits for them, and nothing keeps serving the port afterwards."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.management.commands import serve as serve_command
from tests.migrated import migrated_sqlite
from tests.ports import HeldPort, serves
from tests.system.deployment import children

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]
WAIT = 120.0


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _tree(pid: int) -> list[int]:
    return [pid] + [p for kid in children(pid) for p in _tree(kid)]


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _answers(url: str) -> bool:
    try:
        httpx.get(url, timeout=5)
    except httpx.HTTPError:
        return False
    return True


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def environ(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    env.update(GAIA_DATA_DIR=str(tmp_path), GAIA_LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    migrated_sqlite(tmp_path / "gaia.sqlite3")  # where the default settings put it
    return env


@pytest.fixture
def served(environ, tmp_path):
    """`serve` running with its web server and worker up: (process, port, every pid of it).
    The port stays held to the end (tests/ports.py): once serve has stopped it refuses
    connections, whatever other tests start meanwhile."""
    held = HeldPort()
    port = held.number
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 (closed below)
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--workers", "1"],
        cwd=ROOT, env=environ, stdout=log, stderr=log, start_new_session=True,
    )  # fmt: skip
    log.close()
    seen: list[int] = []
    try:
        _until(lambda: serves(port, serve.pid), "serve's own web server on the port")
        _until(lambda: _answers(f"http://127.0.0.1:{port}/api/v1/health/"), "the web server")
        _until(lambda: len(children(serve.pid)) == 2, "the web server and the worker")
        _until(lambda: len(_tree(serve.pid)) >= 4, "gunicorn's and qcluster's own workers")
        seen = _tree(serve.pid)
        yield serve, port, seen
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=30)
        for pid in seen:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        held.release()


@pytest.mark.parametrize(
    ("signum", "to_group"),
    [
        (signal.SIGTERM, False),  # a service manager, `kill`
        (signal.SIGHUP, False),
        (signal.SIGINT, False),
        (signal.SIGINT, True),  # Ctrl-C: the terminal signals its whole foreground group
    ],
)
def test_a_stop_signal_stops_the_web_server_and_the_worker_and_frees_the_port(
    served, tmp_path, signum, to_group
):
    serve, port, seen = served
    if to_group:
        os.killpg(serve.pid, signum)
    else:
        serve.send_signal(signum)

    assert serve.wait(timeout=WAIT) == 0, (tmp_path / "serve.log").read_text()[-3000:]
    _until(lambda: not any(_running(pid) for pid in seen), "every child to exit")
    assert not _port_open(port)
    said = (tmp_path / "serve.log").read_text()
    # No worker aborted on its way out (a native runtime's threads at interpreter exit).
    assert "terminate called" not in said and "SIGABRT" not in said, said[-3000:]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")
def test_the_children_stop_when_serve_is_killed_outright(served):
    serve, port, seen = served
    serve.kill()  # SIGKILL: serve cannot pass anything on
    serve.wait(timeout=WAIT)

    _until(lambda: not any(_running(pid) for pid in seen), "every child to exit")
    assert not _port_open(port)


@pytest.fixture
def stop_handlers():
    """`_stop` ignores stop signals at its end (serve exits next): restore the test's own."""
    saved = {signum: signal.getsignal(signum) for signum in serve_command.STOP_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_what_a_child_leaves_in_its_process_group_is_stopped_after_it(
    tmp_path, monkeypatch, stop_handlers
):
    """A child that exits while a process it started still runs (django-q2's cluster, stopped
    just as it had started its processes) leaves nothing running: even a process that
    ignores SIGTERM is killed once the grace is over."""
    monkeypatch.setattr(serve_command, "GROUP_GRACE_SECONDS", 0.5)
    pid_file = tmp_path / "grandchild"
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"
    script = (
        "import subprocess, sys, time\n"
        f"kid = subprocess.Popen([sys.executable, '-c', {stubborn!r}])\n"
        f"open({str(pid_file)!r}, 'w').write(str(kid.pid))\n"
        "time.sleep(300)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], process_group=0)
    _until(lambda: pid_file.exists() and pid_file.read_text(), "the child's own process")
    grandchild = int(pid_file.read_text())

    serve_command._stop([child], signal.SIGTERM)

    assert child.poll() is not None
    deadline = time.monotonic() + 30
    while _running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(grandchild)


def test_a_child_that_failed_as_the_stop_came_still_names_serves_exit_code(
    monkeypatch, stop_handlers
):
    """The worker dies with 3 in the instant a stop signal reaches serve, before serve's
    watch saw it: serve stops the rest and still exits with 3, not 0."""
    command = serve_command.Command()

    def watch_interrupted(procs, host, port):
        procs["worker"].wait()  # it has failed by now; the stop arrives before the next look
        raise serve_command.Stop(signal.SIGTERM)

    monkeypatch.setattr(command, "_watch", watch_interrupted)
    commands = {
        "web": [sys.executable, "-c", "import time; time.sleep(300)"],
        "worker": [sys.executable, "-c", "raise SystemExit(3)"],
    }
    assert command._run(commands, "127.0.0.1", "0") == 3
