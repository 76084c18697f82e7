"""AsyncMemoryClient: the same operations as MemoryClient, each to be awaited.

async with AsyncMemoryClient(url, token) as memory:
    hits = await memory.recall("coffee")
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import httpx

from gaia_memory._api import _Api
from gaia_memory._request import _answer, _Call, _Connection, _failure, _reaching


class AsyncMemoryClient(_Api, _Connection[httpx.AsyncClient]):
    """The agent API over HTTP, asynchronously: every method is awaited."""

    _http_class = httpx.AsyncClient

    async def _send(self, call: _Call) -> Any:
        for attempt in itertools.count():
            with _reaching(self.api_url, call):
                response = await self._http.request(**self._args(call))
            failure = _failure(response, call)
            wait = None if failure is None else self.retry.wait(failure, attempt)
            if wait is None:
                return _answer(response, call)
            await asyncio.sleep(wait)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()
