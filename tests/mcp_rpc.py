"""JSON-RPC over the streamable HTTP transport to /mcp, in process (Django's test client).

The official MCP client drives the real server in tests/system/test_mcp.py; these helpers
let the in-process tests look at single exchanges (status codes, error shapes).
"""

import json
from typing import Any

LEGACY = "2025-11-25"  # a handshake-era protocol version: requests carry it in a header
HELLO = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def mcp_post(client: Any, method: str, params: dict | None = None, **headers: str) -> Any:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    headers.setdefault("HTTP_ACCEPT", "application/json, text/event-stream")
    if method != "initialize":
        headers.setdefault("HTTP_MCP_PROTOCOL_VERSION", LEGACY)
    return client.post("/mcp", json.dumps(message), content_type="application/json", **headers)


def mcp_result(client: Any, method: str, params: dict | None = None) -> dict:
    response = mcp_post(client, method, params)
    assert response.status_code == 200, response.content
    body = response.json()
    assert "error" not in body, body
    return body["result"]


def mcp_tool(client: Any, name: str, arguments: dict | None = None) -> dict:
    """The result of a tools/call: {"isError", "structuredContent", "content"}."""
    result = mcp_result(client, "tools/call", {"name": name, "arguments": arguments or {}})
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result


def initialize(client: Any) -> dict:
    return mcp_result(client, "initialize", HELLO)
