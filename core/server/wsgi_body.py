"""Request bodies sent without a Content-Length (`Transfer-Encoding: chunked`: `curl -T -`,
streaming clients), read whole before Django sees the request.

gunicorn decodes the chunks into `wsgi.input` but cannot say how long the body is, and
Django reads exactly CONTENT_LENGTH bytes (none when it is absent): such a body was read
as empty, and a restore failed with "Empty file". `known_length` (wrapped around the
WSGI application in gaia_site/wsgi.py) reads it first, up to the largest body the server
accepts (in a temporary file past SPOOL_BYTES), and passes the same request on with its
length; a longer body is refused with 413 before Django runs. The per-view limits
(core.server.middleware) then apply as to any body.
"""

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django.conf import settings

SPOOL_BYTES = 1024 * 1024
READ_BYTES = 64 * 1024

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def body_limit() -> int:
    """The largest body any view accepts (the import's, or the general limit)."""
    return max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.GAIA_MAX_IMPORT_BYTES)


def _without_length(environ: dict[str, Any]) -> bool:
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return chunked and not environ.get("CONTENT_LENGTH")


class _Answer:
    """The application's answer; closing it also closes the request's spooled body."""

    def __init__(self, answer: Iterable[bytes], body: Any) -> None:
        self.answer, self.body = answer, body

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.answer)

    def close(self) -> None:
        try:
            close = getattr(self.answer, "close", None)
            if close is not None:
                close()
        finally:
            self.body.close()


def _too_large(start_response: Callable[..., Any], limit: int) -> list[bytes]:
    message = f"Request body too large: at most {limit} bytes."
    body = json.dumps({"error": {"code": "too_large", "message": message}}).encode()
    start_response(
        "413 Content Too Large",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]


def known_length(app: WSGIApp) -> WSGIApp:
    """`app`, with chunked request bodies read first and given their length."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if not _without_length(environ):
            return app(environ, start_response)
        limit, size = body_limit(), 0
        body = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        while data := environ["wsgi.input"].read(READ_BYTES):
            size += len(data)
            if size > limit:
                body.close()
                return _too_large(start_response, limit)
            body.write(data)
        body.seek(0)
        environ = {**environ, "wsgi.input": body, "CONTENT_LENGTH": str(size)}
        return _Answer(app(environ, start_response), body)

    return application
