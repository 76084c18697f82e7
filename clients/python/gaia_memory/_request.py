"""What the sync and async clients share below their methods: one request described as a
`_Call` (method, path, body, how the answer is parsed), sent by either client's `_send`, and
the answer or the failure turned into a result or a `GaiaError`."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, NamedTuple, TypeVar

import httpx

from gaia_memory.errors import GaiaConnectionError, GaiaError, RateLimitError, error_for

DEFAULT_URL = "http://127.0.0.1:8000"
API_ROOT = "/api/v1/"
TURN_MAX_CHARS = 100_000  # the server refuses longer turns
# How long a batch write may take to be answered: an accepted batch of 1,000 turns took
# 50-76 s, and a client that gave up at 30 s reported a failure for a stored batch, whose
# retry then stored it twice.
BATCH_TIMEOUT = 600.0


@dataclass(frozen=True)
class Retry:
    """Retries of 429 and 503 answers: after the server's Retry-After, else with
    exponential back-off from `base_delay` (doubling, with jitter); never a wait longer
    than `max_delay` (a longer Retry-After raises at once). `retries=0` turns them off."""

    retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0

    def wait(self, error: GaiaError, attempt: int) -> float | None:
        """Seconds to wait before retrying after `error`, or None: raise it."""
        busy = error.status == 503 and error.code not in LASTING_503
        if (error.status != 429 and not busy) or attempt >= self.retries:
            return None
        asked = error.retry_after if isinstance(error, RateLimitError) else None
        if asked is not None:
            return asked if asked <= self.max_delay else None
        exponential = self.base_delay * 2**attempt
        return min(self.max_delay, exponential / 2 + random.random() * exponential / 2)


# A 503 that says so will not change by waiting (no language model is configured).
LASTING_503 = frozenset({"llm_not_configured"})


class _Call(NamedTuple):
    method: str
    path: str
    body: Any = None
    params: dict[str, Any] | None = None
    parse: Callable[[Any], Any] = lambda body: body
    batch: bool = False  # waits up to the batch timeout for its answer


def _given(**values: Any) -> dict[str, Any]:
    """The values that were given (not None), times as ISO 8601."""
    return {
        key: value.isoformat() if isinstance(value, datetime) else value
        for key, value in values.items()
        if value is not None
    }


class Found(list):
    """A search's hits, best first, with what the server read of the query:
    `time_read` ({"from", "to", "said", "used"} for "yesterday", "about a week ago"; None
    when the query names no time) and `judged` (whether the relevance judge chose them)."""

    def __init__(self, hits: Any = (), *, time_read: Any = None, judged: Any = None) -> None:
        super().__init__(hits)
        self.time_read = time_read
        self.judged = judged


def _results(kind: type) -> Callable[[Any], list]:
    return lambda body: Found(
        [kind.from_json(row) for row in body["results"]],
        time_read=body.get("time_read") if isinstance(body, dict) else None,
        judged=body.get("judged") if isinstance(body, dict) else None,
    )


def _rows(body: Any) -> list:
    return body["results"]


def api_root(base_url: str) -> str:
    """The API's root for a server root; a URL that already ends in /api/v1 is kept."""
    root = base_url.rstrip("/")
    if root.endswith(API_ROOT.rstrip("/")):
        root = root[: -len(API_ROOT.rstrip("/"))]
    return root + API_ROOT


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _failure(response: httpx.Response, call: _Call) -> GaiaError | None:
    """The error an answer is, or None (a health answer's body is its answer)."""
    if response.status_code < 400:
        return None
    body = _body(response)
    if call.path == "health/" and body:
        return None
    return error_for(response.status_code, body, response.headers)


def _answer(response: httpx.Response, call: _Call) -> Any:
    body = _body(response)
    failure = _failure(response, call)
    if failure is not None:
        raise failure
    try:
        return call.parse(body)
    except (KeyError, TypeError, AttributeError) as error:
        raise GaiaError(f"Unexpected answer from the server: {error!r}") from None


def _request_args(
    root: str, headers: dict[str, str], call: _Call, batch_timeout: float
) -> dict[str, Any]:
    args: dict[str, Any] = {"headers": headers, "params": call.params or None}
    if call.batch:
        args["timeout"] = httpx.Timeout(batch_timeout, connect=min(batch_timeout, 30.0))
    if call.body is not None:
        args["content"] = json.dumps(call.body, ensure_ascii=False).encode("utf-8")
        args["headers"] = {**headers, "Content-Type": "application/json"}
    return {"method": call.method, "url": root + call.path, **args}


@contextmanager
def _reaching(api_url: str, call: _Call) -> Iterator[None]:
    """Sends `call` inside: a transport failure becomes a `GaiaConnectionError`."""
    try:
        yield
    except httpx.TransportError as error:
        raise _unreachable(api_url, call, error) from error


def _unreachable(api_url: str, call: _Call, error: httpx.TransportError) -> GaiaConnectionError:
    """A request that got no answer; a write that timed out waiting may well be stored."""
    if isinstance(error, httpx.ReadTimeout) and call.method != "GET":
        return GaiaConnectionError(
            f"No answer from {api_url} in time ({error}): the write may have been stored. "
            "Check before sending it again (a larger `timeout=` waits longer)."
        )
    return GaiaConnectionError(f"Cannot reach {api_url}: {error}")


def _settings(base_url: str | None, token: str | None) -> tuple[str, dict[str, str]]:
    root = api_root(base_url or os.environ.get("GAIA_URL") or DEFAULT_URL)
    token = token or os.environ.get("GAIA_TOKEN") or ""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return root, headers


H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class _Connection(Generic[H]):
    """Where a client sends its calls and with which httpx client (`H`, sync or async)."""

    _http_class: type[H]

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        batch_timeout: float = BATCH_TIMEOUT,
        http_client: H | None = None,
        retry: Retry | None = None,
    ) -> None:
        self.api_url, self._headers = _settings(base_url, token)
        self.retry = retry or Retry()
        self._batch_timeout = max(batch_timeout, timeout)
        self._http: H = http_client or self._http_class(timeout=timeout)

    def _args(self, call: _Call) -> dict[str, Any]:
        return _request_args(self.api_url, self._headers, call, self._batch_timeout)
