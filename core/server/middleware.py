"""HTTP plumbing: a strict Content-Security-Policy on every answer; the trailing-slash
redirect that keeps a write a write; for the API, the request body limit and one error
shape for every /api/ answer.

DRF reads JSON bodies from the raw stream, so Django's DATA_UPLOAD_MAX_MEMORY_SIZE is
never checked for them; this middleware refuses an oversized body (413) before any view
runs. A view may allow more with a `max_body_bytes` class attribute (the import). Errors
produced outside DRF (an unknown /api/ URL, a server error page) are rewritten into the
API's error shape, so clients parse one format whatever went wrong.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.middleware.common import CommonMiddleware as DjangoCommonMiddleware
from django.shortcuts import render

from core.erasing import RETRY_AFTER, erasing
from core.server.storage_full import is_storage_full, storage_full_noted

API_PREFIX = "/api/"
# Answered by DRF views, which refuse a write during an erase themselves (a JSON 503, or
# MCP's tool error).
NOT_PAGES = (API_PREFIX, "/mem0/", "/mcp")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")
# Only our own files may run or style a page: no inline script, no inline style, no
# plugins, no framing, forms post only to this site. A stored text that slipped past the
# template escaping could then still not run. Pages keep their script in static files
# (core/static/gaia/gaia.js); images may be data: URIs (the API docs' icons).
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])  # fmt: skip

_MESSAGES = {
    400: ("bad_request", "Bad request."),
    403: ("permission_denied", "You do not have permission to perform this action."),
    404: ("not_found", "Not found."),
    405: ("method_not_allowed", "Method not allowed."),
    413: ("too_large", "Request body too large."),
    507: ("storage_full", "The server's disk is full."),
    500: ("server_error", "Internal server error."),
}


def error_json(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class CommonMiddleware(DjangoCommonMiddleware):
    """Django's, except that a write to a URL without its trailing slash is redirected with
    308, which keeps the method and the body. Django's 301 is followed as a GET by
    `requests` and by browsers: a POST to /api/v1/memories answered 200 with a list and
    stored nothing."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            response.status_code == 404
            and request.method not in SAFE_METHODS
            and self.should_redirect_with_slash(request)
        ):
            path = request.get_full_path(force_append_slash=True)
            return HttpResponsePermanentRedirect(path, preserve_request=True)
        return super().process_response(request, response)


class ApiMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        code, message = _MESSAGES.get(
            response.status_code, ("error", f"HTTP {response.status_code}.")
        )
        rewritten = error_json(code, message, response.status_code)
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if response.has_header(header):
                rewritten[header] = response[header]
        return rewritten

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if not request.path.startswith(API_PREFIX):
            return None
        limit = getattr(
            getattr(view_func, "cls", None), "max_body_bytes", settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        )
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_json("bad_request", "Invalid Content-Length header.", 400)
        if limit is not None and length > limit:
            return error_json("too_large", f"Request body too large: at most {limit} bytes.", 413)
        return None


STORAGE_FULL = (
    "The server's disk is full: nothing was stored. Reading works; writing works again "
    "once its operator has freed space."
)


class StorageFullMiddleware:
    """A request that failed because the disk is full answers 507 saying so (not a
    generic 500), and health's `storage` check reports it (core.server.storage_full)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not is_storage_full(exception):
            return None
        storage_full_noted()
        if request.path.startswith(API_PREFIX):
            return error_json("storage_full", STORAGE_FULL, 507)
        return HttpResponse(STORAGE_FULL, status=507, content_type="text/plain; charset=utf-8")


class EraseHoldMiddleware:
    """A page's form sent while the signed-in person's erase runs answers a 503 page
    saying so, with Retry-After, and stores nothing (core/erasing.py): whatever it wrote
    could outlive the erase."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in SAFE_METHODS and not request.path.startswith(NOT_PAGES):
            user = getattr(request, "user", None)
            if getattr(user, "is_authenticated", False) and erasing(user.pk):
                response = render(request, "web/erase_running.html", status=503)
                response["Retry-After"] = str(RETRY_AFTER)
                return response
        return self.get_response(request)
