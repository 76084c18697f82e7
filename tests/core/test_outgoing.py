"""The one outgoing-HTTP module: the address rule is checked on the address connected,
and each rule has a pool of its own."""

import socket
import threading

import httpx
import pytest

from core.outgoing import RefusedAddressError, client, is_public, post_bytes


class Listener:
    """A loopback HTTP port that counts the connections it accepted."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.accepted = 0
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.sock.close()


def _post(url: str, *, allow_private: bool) -> int:
    status, _ = post_bytes(url, b"{}", headers={}, deadline_seconds=10, allow_private=allow_private)
    return status


def test_a_public_only_post_to_loopback_is_refused_before_connecting(listener):
    for host in ("127.0.0.1", "localhost", "[::ffff:127.0.0.1]"):
        with pytest.raises(RefusedAddressError):
            _post(f"http://{host}:{listener.port}/hook", allow_private=False)
    assert listener.accepted == 0


def test_a_connection_opened_where_private_is_allowed_is_never_reused_where_it_is_not(listener):
    assert _post(f"http://127.0.0.1:{listener.port}/hook", allow_private=True) == 200
    with pytest.raises(RefusedAddressError):
        _post(f"http://127.0.0.1:{listener.port}/hook", allow_private=False)
    assert listener.accepted == 1


def test_only_global_unicast_addresses_are_public():
    assert is_public("93.184.216.34") and is_public("2606:2800:220:1::1")
    private = ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "fe80::1%eth0"]
    private += ["::ffff:10.0.0.1", "100.64.0.1", "224.0.0.1", "0.0.0.0", "not-an-ip"]
    for address in private:
        assert not is_public(address), address


def test_a_public_only_client_never_goes_through_a_proxy_from_the_environment(
    listener, monkeypatch
):
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{listener.port}")
    monkeypatch.setenv("ALL_PROXY", f"http://127.0.0.1:{listener.port}")
    with client(allow_private=False) as public, pytest.raises(httpx.ConnectError):
        public.post("http://hooks.invalid/hook", content=b"{}")  # resolved here, not there
    assert listener.accepted == 0
