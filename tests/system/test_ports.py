"""The ports the system tests' servers listen on are their own (tests/ports.py): a held
port is given to no other socket and refuses connections until the test's own server
listens there, and a deployment never takes another process's server on its port for
its own."""

import errno
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.ports import HOST, HeldPort, listening_inodes, serves

pytestmark = pytest.mark.system


class Impostor:
    """Another process's server as a test would meet it: it answers 200 to everything."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        impostor = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                impostor.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((HOST, 0), Handler)
        self.number = self.server.server_address[1]
        self.url = f"http://{HOST}:{self.number}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def release(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _refused(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex((HOST, port)) == errno.ECONNREFUSED


def test_a_held_port_refuses_connections_and_no_other_socket_is_given_it():
    with HeldPort() as port:
        assert _refused(port.number)
        with socket.socket() as other, pytest.raises(OSError) as taken:
            other.bind((HOST, port.number))
        assert taken.value.errno == errno.EADDRINUSE
        for _ in range(200):  # what a free-port helper of another test would be given
            with socket.socket() as other:
                other.bind((HOST, 0))
                assert other.getsockname()[1] != port.number
        with port.listener() as listening:  # the test's own server can listen there
            with socket.create_connection((HOST, port.number), timeout=30):
                pass
            listening.accept()[0].close()
        assert _refused(port.number)  # and once it is gone, the port is still held


def test_serves_names_only_the_process_holding_the_listener():
    with HeldPort() as port:
        assert not serves(port.number, os.getpid())  # held, but nothing listens
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            with port.listener():
                assert serves(port.number, os.getpid())
                assert not serves(port.number, other.pid)
        finally:
            other.kill()
            other.wait()


def test_another_processs_server_on_the_port_is_never_taken_for_the_deployment(deployment):
    """The race of a port freed before the server binds it: another process's server got
    it. serve cannot listen there and ends; the deployment says so instead of sending the
    test's traffic to the other server."""
    impostor = Impostor()
    deployment._port = lambda: impostor  # the port the race would have handed over
    try:
        with pytest.raises(AssertionError):
            deployment.start_serve()
    finally:
        deployment.stop()
        impostor.release()
    assert "GAIA_PORT=" in deployment.logs()  # serve's own words: the port was taken
    assert impostor.paths == []


def test_the_web_servers_port_is_its_own_and_refuses_connections_once_it_is_killed(
    deployment,
):
    url = deployment.start_web(workers=1, threads=1)
    port = int(url.rsplit(":", 1)[1])
    assert serves(port, deployment.procs["web"].pid)
    deployment.kill("web")
    deadline = time.monotonic() + 60  # its workers die a moment after the arbiter
    while listening_inodes(port):
        assert time.monotonic() < deadline, "the killed server's workers still listen"
        time.sleep(0.2)
    assert _refused(port)
    # Still held by the deployment: no other process's server can be started there.
    with socket.socket() as other, pytest.raises(OSError) as taken:
        other.bind((HOST, port))
    assert taken.value.errno == errno.EADDRINUSE
