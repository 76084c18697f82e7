"""Every outgoing HTTP call goes through here: the LLM, embeddings, rerank (`post_json`,
or `client()` for the LLM's own requests) and webhook deliveries (`post_bytes`).

Two rules hold for every socket this module opens:

- **A deadline per socket operation.** httpx timeouts apply per operation, so a server
  trickling one byte a second would never time out. Inside `deadline(at)` each connect,
  TLS handshake, read and write is given at most the time left until `at`, so a call
  ends on time whatever the server does.
- **The address rule on the address actually connected.** A client made with
  `allow_private=False` resolves the host itself, connects only to global addresses and
  checks the socket's peer once connected; a name that resolved to a public address when
  a URL was checked and to a loopback one now (DNS rebinding) is refused at connect time,
  as healthchecks does with curl's OPENSOCKETFUNCTION. Such a client never uses a proxy
  from the environment (the proxy would be the address connected); the operator's own
  model servers (`allow_private=True`) keep the environment's proxy and CA settings.
  Each rule has its own pool, so a connection opened under one is never reused under
  the other.
"""

import contextlib
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

MAX_BODY_BYTES = 64 * 1024 * 1024
_deadline: ContextVar[float | None] = ContextVar("gaia_http_deadline", default=None)


class ModelServerError(RuntimeError):
    """The server was unreachable, too slow, or answered something unusable."""


class AddressRefused(httpcore.ConnectError):
    """The host is, or now resolves to, an address the caller may not connect to."""


class RefusedAddressError(ModelServerError):
    """Raised by `post_bytes` for AddressRefused: nothing was sent."""


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


def is_public(address: str) -> bool:
    """A global unicast address (not loopback, private, link-local, reserved, ...)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


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


class _Backend(httpcore.NetworkBackend):
    def __init__(self, *, allow_private: bool) -> None:
        self._backend = httpcore.SyncBackend()
        self.allow_private = allow_private

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        if self.allow_private:
            stream = self._backend.connect_tcp(
                host, port, _bounded(timeout, httpcore.ConnectTimeout), local_address,
                socket_options,
            )  # fmt: skip
            return _DeadlineStream(stream)
        return _DeadlineStream(self._connect_public(host, port, timeout, socket_options))

    def _connect_public(self, host, port, timeout, socket_options) -> httpcore.NetworkStream:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:
            raise httpcore.ConnectError(f"cannot resolve {host}: {error}") from error
        addresses = [info[4][0] for info in found]
        if not any(is_public(a) for a in addresses):
            raise AddressRefused("refused: the host is not a public address")
        last: Exception | None = None
        for address in filter(is_public, addresses):  # connected by number: no new lookup
            try:
                stream = self._backend.connect_tcp(
                    address, port, _bounded(timeout, httpcore.ConnectTimeout), None,
                    socket_options,
                )  # fmt: skip
            except httpcore.ConnectError as error:
                last = error
                continue
            peer = stream.get_extra_info("socket").getpeername()[0]
            if not is_public(peer):  # the address actually connected decides
                stream.close()
                raise AddressRefused("refused: the host is not a public address")
            return stream
        raise last or httpcore.ConnectError(f"cannot connect to {host}")

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        if not self.allow_private:
            raise AddressRefused("refused: a local socket")
        stream = self._backend.connect_unix_socket(
            path, _bounded(timeout, httpcore.ConnectTimeout), socket_options=socket_options
        )
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class Transport(httpx.HTTPTransport):
    """httpx's own transport over a connection pool that uses the backend above."""

    def __init__(self, *, allow_private: bool = True) -> None:
        super().__init__(trust_env=allow_private)
        # Same pool httpx builds (no proxy), plus our network backend. httpx is pinned;
        # tests/core/test_outgoing.py fails if this stops bounding reads or addresses.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=allow_private),
            max_connections=10,
            max_keepalive_connections=5,
            keepalive_expiry=5.0,
            network_backend=_Backend(allow_private=allow_private),
        )


def client(*, allow_private: bool = True, headers: dict[str, str] | None = None) -> httpx.Client:
    """A client of its own (the LLM's, with its headers) under the module's two rules."""
    return httpx.Client(
        transport=Transport(allow_private=allow_private),
        headers=headers or {},
        follow_redirects=False,
        trust_env=allow_private,  # HTTP(S)_PROXY, SSL_CERT_FILE: the operator's servers only
    )


_shared: dict[bool, httpx.Client] = {}
_shared_lock = threading.Lock()


def _shared_client(allow_private: bool) -> httpx.Client:
    with _shared_lock:
        if allow_private not in _shared:
            _shared[allow_private] = client(allow_private=allow_private)
        return _shared[allow_private]


def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str = "",
    deadline_seconds: float,
    max_bytes: int = MAX_BODY_BYTES,
) -> Any:
    """POST `payload` as JSON to a model server and return the decoded JSON answer, all
    within the deadline (the operator's URL: private addresses allowed)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        with deadline(time.monotonic() + deadline_seconds):
            status, body = _exchange(
                url, json.dumps(payload).encode(), headers, deadline_seconds, max_bytes, True
            )
    except httpx.TimeoutException as error:
        raise ModelServerError(f"{url}: no complete answer within {deadline_seconds}s") from error
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise ModelServerError(f"{url}: {type(error).__name__}: {error}") from error
    if len(body) > max_bytes:
        raise ModelServerError(f"{url}: answer larger than {max_bytes} bytes")
    if status >= 400:
        raise ModelServerError(f"{url}: HTTP {status}: {bytes(body[:200])!r}")
    try:
        return json.loads(body)
    except ValueError as error:
        raise ModelServerError(f"{url}: answer is not JSON ({error})") from error


def post_bytes(
    url: str,
    body: bytes,
    *,
    headers: dict[str, str],
    deadline_seconds: float,
    allow_private: bool,
    max_bytes: int = 64 * 1024,
) -> tuple[int, bytes]:
    """POST `body` and return (status, the first `max_bytes` of the answer), whatever the
    status, all within the deadline; redirects are not followed (a 3xx is an answer).
    ModelServerError when the server is unreachable or too slow, RefusedAddressError
    when the address rule refused it."""
    try:
        with deadline(time.monotonic() + deadline_seconds):
            status, answer = _exchange(
                url, body, headers, deadline_seconds, max_bytes, allow_private
            )
        return status, bytes(answer[:max_bytes])
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        refused = isinstance(error.__cause__, AddressRefused)
        kind = RefusedAddressError if refused else ModelServerError
        raise kind(f"{type(error).__name__}: {error}") from error


def _exchange(
    url: str, body: bytes, headers: dict, seconds: float, max_bytes: int, allow_private: bool
) -> tuple[int, bytearray]:
    """One POST; the answer is read up to one byte past `max_bytes`."""
    with _shared_client(allow_private).stream(
        "POST", url, content=body, headers=headers, timeout=httpx.Timeout(seconds)
    ) as response:
        answer = bytearray()
        for chunk in response.iter_bytes():
            answer.extend(chunk)
            if len(answer) > max_bytes:
                break
        return response.status_code, answer


def endpoint(base_url: str, path: str) -> str:
    """`base_url` may or may not already end in /v1; `path` is like "/v1/embeddings"."""
    base = base_url.rstrip("/")
    if base.endswith("/v1") and path.startswith("/v1/"):
        path = path[3:]
    return base + path
