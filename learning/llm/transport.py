"""An httpx transport whose every socket operation respects one overall deadline.

httpx timeouts apply per operation: a server that sends one byte a second (even while
still sending headers) never trips a read timeout. Here each connect, read and write is
given at most the time left until the deadline set in `deadline()`, so a call ends on
time whatever the server does.
"""

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

_deadline: ContextVar[float | None] = ContextVar("gaia_llm_deadline", default=None)


@contextlib.contextmanager
def deadline(at: float) -> Iterator[None]:
    """Bound all network operations in this context by `at` (time.monotonic())."""
    token = _deadline.set(at)
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    at = _deadline.get()
    return None if at is None else at - time.monotonic()


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    left = time_left()
    if left is None:
        return timeout
    if left <= 0:
        raise error("overall deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> "_DeadlineStream":
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._backend.connect_tcp(
            host,
            port,
            _bounded(timeout, httpcore.ConnectTimeout),
            local_address=local_address,
            socket_options=socket_options,
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        stream = self._backend.connect_unix_socket(
            path, _bounded(timeout, httpcore.ConnectTimeout), socket_options=socket_options
        )
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport over a connection pool that uses the deadline backend."""

    def __init__(self) -> None:
        super().__init__()
        # Same pool httpx builds (no proxy), plus our network backend. httpx is pinned;
        # tests/learning/test_llm_client.py fails if this stops bounding reads.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=10,
            max_keepalive_connections=5,
            keepalive_expiry=5.0,
            network_backend=_DeadlineBackend(),
        )
