"""One buffered HTTP exchange with an ASGI application, from a synchronous Django view.

The web server is WSGI (gunicorn threads). A protocol library that only speaks ASGI
(the MCP SDK's streamable HTTP transport) still fits when each exchange is one request
in and one complete response out: `asgi_exchange` hands the application the request's
method, headers and body, waits for its answer and returns it as an HttpResponse.

The application runs on an event loop of its own, through asgiref's `async_to_sync`
(Django's own bridge). Code it runs through `sync_to_async(..., thread_sensitive=True)`
comes back to the calling request thread, so the ORM uses that thread's connection,
inside the request, exactly as a plain view would.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import async_to_sync
from django.http import HttpRequest, HttpResponse

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def request_scope(request: HttpRequest) -> Scope:
    """The ASGI HTTP scope of a Django request (headers lower-cased, as ASGI wants)."""
    port = request.META.get("SERVER_PORT") or ""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1", "replace"))
            for name, value in request.headers.items()
        ],
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.META.get("SERVER_NAME", ""), int(port) if port.isdigit() else 0),
        "state": {},
    }


async def _exchange(app: AsgiApp, scope: Scope, body: bytes) -> tuple[int, list, bytes]:
    status = 500
    headers: list[tuple[bytes, bytes]] = []
    chunks: list[bytes] = []
    answered = asyncio.Event()
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client "disconnects" once the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    try:
        await app(scope, receive, send)
    finally:
        answered.set()
    return status, headers, b"".join(chunks)


def asgi_exchange(app: AsgiApp, request: HttpRequest, body: bytes) -> HttpResponse:
    """Run `app` for `request` (its body already read) and return its complete answer."""
    status, headers, content = async_to_sync(_exchange)(app, request_scope(request), body)
    response = HttpResponse(content, status=status)
    for name, value in headers:
        key = name.decode("latin-1")
        if key.lower() != "content-length":  # Django sets it from the content
            response[key] = value.decode("latin-1")
    return response
