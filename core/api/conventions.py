"""API conventions shared by every endpoint: one error shape, paging, throttling.

Errors: {"error": {"code": str, "message": str, "fields"?: {name: [messages]}}}.
A Django ValidationError from a service is a 400; an object that is missing or belongs
to someone else (ObjectDoesNotExist) is the same 404. A write that failed on a row its
person's erase removed (an IntegrityError) is the erase's retryable 503 (core/erasing.py);
one the database ended to break a deadlock with another of the person's writes (an erase,
PostgreSQL) is a retryable 503 too (`try_again`, or the erase's while one runs).
"""

import logging
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, IntegrityError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle

from core.chunks import lost_a_deadlock
from core.erasing import integrity_answer

MAX_PAGE_SIZE = 200
log = logging.getLogger(__name__)


class TryAgain(exceptions.APIException):
    """A write the database ended to break a deadlock: nothing of it was stored."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "try_again"
    default_detail = "The write met another write of the same person and was undone; try again."

    def __init__(self) -> None:
        super().__init__()
        self.wait = 1  # DRF's handler turns it into Retry-After


def error_fields(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Flatten nested serializer errors: {"0": {"content": [..]}} -> {"0.content": [..]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        items = detail.items()
    elif isinstance(detail, list) and any(isinstance(v, (dict, list)) for v in detail):
        items = ((str(i), v) for i, v in enumerate(detail) if v)
    else:
        return {prefix: [str(m) for m in (detail if isinstance(detail, list) else [detail])]}
    for key, value in items:
        out.update(error_fields(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _messages(detail: Any) -> list[str]:
    return [str(m) for m in detail] if isinstance(detail, list) else [str(detail)]


def error_response(code: str, message: str, http_status: int, fields: dict | None = None):
    body: dict[str, Any] = {"code": code, "message": message}
    if fields:
        body["fields"] = fields
    return Response({"error": body}, status=http_status)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    # Imported here: rest_framework.views loads the throttle class below while it builds
    # APIView, so a module-level import makes importing this module first a cycle.
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, DjangoValidationError):
        fields = error_fields(exc.message_dict) if hasattr(exc, "error_dict") else {}
        message = "; ".join(exc.messages) if not fields else "Invalid input."
        code = getattr(exc, "code", None) or "invalid"
        return error_response(code, message, status.HTTP_400_BAD_REQUEST, fields)
    if isinstance(exc, (ObjectDoesNotExist, Http404)):
        return error_response("not_found", "Not found.", status.HTTP_404_NOT_FOUND)
    if isinstance(exc, IntegrityError) or (isinstance(exc, DatabaseError) and lost_a_deadlock(exc)):
        cause = exc
        exc = integrity_answer(context.get("request")) or (
            TryAgain() if not isinstance(exc, IntegrityError) else exc
        )
        if exc is not cause:  # what the 503 stands for, for whoever reads the log
            log.warning("a write answered 503 %s: %s", exc.default_code, cause)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = error_fields(exc.detail) if isinstance(exc.detail, (dict, list)) else {}
        if isinstance(exc.detail, list) and set(fields) == {""}:
            fields = {}  # a plain list of messages, not per-field errors
        message = "Invalid input." if fields else "; ".join(map(str, _messages(exc.detail)))
        response.data = {"error": {"code": "invalid", "message": message}}
        if fields:
            response.data["error"]["fields"] = fields
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = str(detail) if not isinstance(detail, (dict, list)) else "Request failed."
        response.data = {
            "error": {
                "code": exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code,
                "message": message,
            }
        }
    return response


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


class TokenRateThrottle(SimpleRateThrottle):
    """The API's one request rate, counted per credential: per API token, per app token
    (`rate_key`, `app<id>`: an app token's ids are not API token ids, and an app acting
    for its people counts each person's acting token), or per user for session auth."""

    scope = "token"

    def get_cache_key(self, request, view) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        token = getattr(request, "auth", None)
        ident = getattr(token, "rate_key", None) or (
            f"t{token.pk}" if getattr(token, "pk", None) else f"u{request.user.pk}"
        )
        return self.cache_format % {"scope": self.scope, "ident": ident}
