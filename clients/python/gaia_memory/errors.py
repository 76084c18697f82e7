"""The server's errors as exceptions.

Every error answer of the API has one shape, `{"error": {"code", "message", "fields"?}}`;
it becomes a `GaiaError` (or the subclass for its status) carrying those three and the
HTTP status, and `request_id`: the id the server logged the request under (its answer's
X-Request-ID; the server's log lines and those of the tasks it queued carry it), to quote
when asking its operator. A server that cannot be reached raises `GaiaConnectionError`.
"""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any


class GaiaError(Exception):
    """An error answer of the Gaia Memory Server."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        fields: dict[str, list[str]] | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.fields = fields or {}
        self.request_id = request_id

    def __str__(self) -> str:
        where = f" ({self.status} {self.code})" if self.status else f" ({self.code})"
        fields = "; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in self.fields.items())
        return f"{self.message}{where}" + (f" {fields}" if fields else "")


class GaiaConnectionError(GaiaError):
    """The server could not be reached, or did not answer in time."""


class AuthenticationError(GaiaError):
    """401: a missing, malformed, revoked or expired token (the message says to set
    GAIA_TOKEN, sent as `Authorization: Bearer <token>`)."""


class PermissionDeniedError(GaiaError):
    """403: the token may not do this."""


class NotFoundError(GaiaError):
    """404: no such object (another user's ids answer the same)."""


class InvalidRequestError(GaiaError):
    """400, 413 or 415: the request was refused; `fields` names what is wrong."""


class RateLimitError(GaiaError):
    """429: too many requests for this token; wait `retry_after` seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailableError(GaiaError):
    """503: e.g. no language model is configured for `extract`."""


class ServerError(GaiaError):
    """5xx: the server failed."""


_BY_STATUS: dict[int, type[GaiaError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    503: ServiceUnavailableError,
}


TOKEN_HINT = (
    " Set GAIA_TOKEN (or pass `token`) to an API token of the person whose memory this is; "
    "it is sent as `Authorization: Bearer <token>`."
)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date), or None."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return max(0.0, (moment - datetime.now(timezone.utc)).total_seconds())


def error_for(status: int, body: Any, headers: Any = None) -> GaiaError:
    """The exception for an error answer (`body` parsed JSON, or None)."""
    detail = body.get("error") if isinstance(body, dict) else None
    detail = detail if isinstance(detail, dict) else {}
    message = str(detail.get("message") or f"HTTP {status}")
    if status == 401:
        message += TOKEN_HINT
    code = str(detail.get("code") or "error")
    fields = detail.get("fields") if isinstance(detail.get("fields"), dict) else None
    known = {"status": status, "code": code, "fields": fields,
             "request_id": (headers or {}).get("x-request-id") or None}  # fmt: skip
    if status == 429:
        retry_after = retry_after_seconds((headers or {}).get("retry-after"))
        return RateLimitError(message, retry_after=retry_after, **known)
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else GaiaError)
    return kind(message, **known)
