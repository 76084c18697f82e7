"""The official MCP Python SDK's client against /mcp of a server started as `make run` does
(`manage.py serve`: gunicorn and a worker), in both protocol eras: the `initialize`
handshake that today's hosts use (mode="legacy") and the 2026-07-28 per-request envelope
the SDK's client prefers (mode="auto").
"""

import asyncio

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.system
SECRET = "Alice keeps her passport in the blue drawer"
SIX = [
    "remember",
    "recall",
    "update_memory",
    "list_memories",
    "forget",
    "search_past_conversations",
]


def _client(url: str, token: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode)


async def _alice(url: str, token: str) -> int:
    async with _client(url, token, "legacy") as alice:
        assert alice.protocol_version == "2025-11-25"
        assert alice.server_info.name == "gaia-memory"
        names = [tool.name for tool in (await alice.list_tools()).tools]
        assert names[:6] == SIX  # and extract: this deployment has a model
        stored = await alice.call_tool("remember", {"content": SECRET, "category": "fact"})
        assert not stored.is_error, stored
        item_id = stored.structured_content["id"]
        found = await alice.call_tool("recall", {"query": "where is the passport"})
        assert [hit["id"] for hit in found.structured_content["results"]] == [item_id]
        missing = await alice.call_tool("forget", {"id": item_id + 1000})
        assert missing.is_error and missing.structured_content["error"]["code"] == "not_found"
    return item_id


async def _bob(url: str, token: str, item_id: int) -> None:
    async with _client(url, token, "auto") as bob:
        assert bob.protocol_version == "2026-07-28"
        assert "drawer" not in (bob.instructions or "")
        found = await bob.call_tool("recall", {"query": "where is the passport blue drawer"})
        assert found.structured_content["results"] == []
        taken = await bob.call_tool("forget", {"id": item_id})
        assert taken.is_error and taken.structured_content["error"]["code"] == "not_found"
        block = await bob.get_prompt("memory-system")
        assert "drawer" not in block.messages[0].content.text


async def _alice_again(url: str, token: str, item_id: int) -> None:
    async with _client(url, token, "auto") as alice:
        assert SECRET in (alice.instructions or "")
        found = await alice.call_tool("recall", {"query": "passport"})
        assert [hit["id"] for hit in found.structured_content["results"]] == [item_id]


def test_the_official_client_remembers_and_recalls_and_another_token_sees_nothing(deployment):
    tokens = deployment.tokens(["alice", "bob"])
    url = deployment.start_serve()
    item_id = asyncio.run(_alice(url, tokens["alice"]))
    asyncio.run(_bob(url, tokens["bob"], item_id))
    asyncio.run(_alice_again(url, tokens["alice"], item_id))
    anonymous = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert anonymous.status_code == 401
