"""/mcp: the MCP server over the streamable HTTP transport (stateless, JSON responses).

Each POST carries one JSON-RPC message and gets one JSON answer. No session is kept
between requests (no `Mcp-Session-Id`), so any web worker can answer any request and
nothing lives in a process between them; the SDK's stateless mode serves both protocol
eras (the `initialize` handshake of 2025 and the per-request envelope of 2026-07-28).
GET (a server-to-client event stream) and DELETE (ending a session) answer 405, as the
transport allows for a server that has neither.

Authentication and throttling are the REST API's: the same Bearer tokens (no session
cookies here), the same per-token rate, strictly per user. The SDK runs on its own event
loop for the length of one request (core/server/asgi_bridge.py); its handlers come back to this
request's thread for every database access.

The SDK (and `memory.api.mcp_server`, built on it) is imported by the first request to
/mcp, not with the URLs: it takes ~0.7 s of CPU to import, which every process that loads
them (each web and task worker, each management command) would pay for nothing.
"""

import json
from functools import partial
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.agents import request_active_context, request_agent, request_context
from accounts.auth import ActsForAPersonToolByTool, BearerTokenAuthentication
from core.server.asgi_bridge import Receive, Scope, Send, asgi_exchange
from core.server.middleware import error_json
from memory.agent_prompt import system_prompt
from memory.services import memory_seen

# Requests whose answer carries the server's instructions (the user's system block).
_INTRODUCTIONS = {"initialize", "server/discover"}


async def _serve(server: Any, scope: Scope, receive: Receive, send: Send) -> None:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
    async with manager.run():
        await manager.handle_request(scope, receive, send)


def _method(body: bytes) -> str | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the SDK answers with a parse error
    return message.get("method") if isinstance(message, dict) else None


class _JsonWhateverTheAccept(BaseContentNegotiation):
    """Our own answers (401, 405, 429) are JSON even to `Accept: text/event-stream`: a
    client's GET for an event stream must get the transport's 405, not a 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


@extend_schema(exclude=True)  # MCP describes itself (tools/list, prompts/list)
class McpView(APIView):
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [ActsForAPersonToolByTool]  # an erase refuses tools, not messages
    content_negotiation_class = _JsonWhateverTheAccept

    def post(self, request: Request) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_json("bad_request", "Invalid Content-Length header.", 400)
        if length > limit:
            return error_json("too_large", f"Request body too large: at most {limit} bytes.", 413)
        body = request.body
        instructions = None
        if _method(body) in _INTRODUCTIONS:
            instructions, shown = system_prompt(
                user=request.user,
                agent=request_agent(request),
                context=request_active_context(request),
            )
            memory_seen(user=request.user, item_ids=shown)
        from memory.api.mcp_server import build_server  # see the module docstring

        server = build_server(
            request.user,
            instructions=instructions,
            token=request.auth,
            context=request_context(request),
        )
        return asgi_exchange(partial(_serve, server), request._request, body)
