"""AsyncMemoryClient: the same operations as MemoryClient, each to be awaited.

async with AsyncMemoryClient(url, token) as memory:
    hits = await memory.recall("coffee")
"""

from __future__ import annotations

from typing import Any

import httpx

from gaia_memory._api import _Api
from gaia_memory._request import (
    BATCH_TIMEOUT,
    _answer,
    _Call,
    _request_args,
    _settings,
    _unreachable,
)


class AsyncMemoryClient(_Api):
    """The agent API over HTTP, asynchronously: every method is awaited."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        batch_timeout: float = BATCH_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.api_url, self._headers = _settings(base_url, token)
        self._batch_timeout = max(batch_timeout, timeout)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def _send(self, call: _Call) -> Any:
        args = _request_args(self.api_url, self._headers, call, self._batch_timeout)
        try:
            response = await self._http.request(**args)
        except httpx.TransportError as error:
            raise _unreachable(self.api_url, call, error) from error
        return _answer(response, call)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()
