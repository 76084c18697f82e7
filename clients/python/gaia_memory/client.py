"""MemoryClient and AsyncMemoryClient: the Gaia Memory Server's agent API in Python.

    from gaia_memory import MemoryClient

    memory = MemoryClient("http://127.0.0.1:8000", "gaia_...")
    memory.remember("Prefers concise answers", category="preference")
    for hit in memory.recall("how does the user like answers"):
        print(hit.id, hit.content, hit.score)

`base_url` is the server's root; the token is an API token of the user whose memory this
is (web app: API tokens, or `manage.py create_api_token`). Both default to the
environment variables GAIA_URL and GAIA_TOKEN. Error answers raise `GaiaError`
subclasses (gaia_memory.errors).

AsyncMemoryClient has the same methods, each to be awaited:

    async with AsyncMemoryClient(url, token) as memory:
        hits = await memory.recall("coffee")
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import httpx

from gaia_memory._api import _Api
from gaia_memory._request import (
    API_ROOT,
    BATCH_TIMEOUT,
    DEFAULT_URL,
    TURN_MAX_CHARS,
    _answer,
    _Call,
    _Connection,
    _failure,
    _reaching,
    api_root,
)
from gaia_memory.async_client import AsyncMemoryClient

__all__ = [
    "API_ROOT",
    "BATCH_TIMEOUT",
    "DEFAULT_URL",
    "TURN_MAX_CHARS",
    "AsyncMemoryClient",
    "MemoryClient",
    "api_root",
]


class MemoryClient(_Api, _Connection[httpx.Client]):
    """The agent API over HTTP, synchronously (one httpx.Client, reused)."""

    _http_class = httpx.Client

    def _send(self, call: _Call) -> Any:
        for attempt in itertools.count():
            with _reaching(self.api_url, call):
                response = self._http.request(**self._args(call))
            failure = _failure(response, call)
            wait = None if failure is None else self.retry.wait(failure, attempt)
            if wait is None:
                return _answer(response, call)
            time.sleep(wait)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
