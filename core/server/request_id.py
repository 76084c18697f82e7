"""A request id in every log line and answer, the request metrics, and JSON log lines.

`RequestMiddleware` (first in MIDDLEWARE) takes the caller's `X-Request-ID` when it is a
short token (a load balancer's), else makes one, answers it in `X-Request-ID`, and holds
it for the request's log lines (`RequestIdFilter` adds `request_id`: "-" outside a
request). A task queued during a request carries the id (django-q2's `pre_enqueue`), and
the task worker holds it while the task runs (`pre_execute` to `post_execute_in_worker`),
so the task's log lines name the request that queued it. The middleware also counts the
request by route (the URL pattern, never the path: no ids or names in a label), method
and status, and times it (core/server/metrics.py).
"""

import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

from django.http import HttpRequest, HttpResponse

from core.server import metrics

HEADER = "X-Request-ID"
_GIVEN = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")
_current: ContextVar[str] = ContextVar("gaia_request_id", default="-")


def current() -> str:
    """This request's id ("-" outside one)."""
    return _current.get()


class RequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(HEADER, "")
        request_id = given if _GIVEN.match(given) else uuid.uuid4().hex
        token = _current.set(request_id)
        began = time.perf_counter()
        try:
            response = self.get_response(request)
            response[HEADER] = request_id
            if metrics.enabled():
                _count(request, response.status_code, time.perf_counter() - began)
            return response
        finally:
            _current.reset(token)


def _count(request: HttpRequest, status: int, seconds: float) -> None:
    match = getattr(request, "resolver_match", None)
    route = "/" + match.route if match is not None and match.route else "unmatched"
    method = request.method if request.method in METHODS else "other"
    metrics.REQUESTS.labels(route, method, str(status)).inc()
    metrics.LATENCY.labels(route, method).observe(seconds)


METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


TASK_KEY = "gaia_request_id"
_task_tokens: list[Token[str]] = []


def task_carry(task: dict[str, Any], **_: Any) -> None:
    """django-q2's `pre_enqueue`: a task queued in a request carries its id."""
    request_id = _current.get()
    if request_id != "-":
        task[TASK_KEY] = request_id


def task_begin(task: dict[str, Any], **_: Any) -> None:
    """`pre_execute`, in the worker: the task's log lines name the request that queued it
    ("-" for a schedule's or a sweep's task)."""
    _task_tokens.append(_current.set(str(task.get(TASK_KEY, "-"))))


def task_end(**_: Any) -> None:
    """`post_execute_in_worker`: the worker's own lines are outside any request again."""
    if _task_tokens:
        _current.reset(_task_tokens.pop())


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record (the format and JSON lines name it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _current.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line (GAIA_LOG_FORMAT=json): time, level, logger, request_id,
    message, and the exception's traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
