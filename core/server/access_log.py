"""What the logs show of a request's path: its route, never the names a client chose.

A session's URL carries the id its client picked (`/api/v1/conversations/sessions/
chat-with-ottoline/`), an app's person's URL their external id (`/api/v1/people/
ana@example.com/`, mem0's `/mem0/v2/entities/user/ana@example.com/`, `?user_id=...`), and
a log line outlives an account erase. Two places log paths:

- the server's access log (gunicorn's `%(U)s`, read from the WSGI environ once the answer
  is sent): `private_paths` replaces such segments in the environ after the application
  has answered (Django has read the path by then);
- Django's request log ("Not Found: /api/..."): `PrivatePathsFilter` on the handlers.

Either way the line reads `/api/v1/conversations/sessions/{session_id}/`,
`/api/v1/people/{user_id}/tokens/`, `/mem0/v2/entities/user/{name}/`, `?user_id={id}`.
"""

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_END = r"""(?=(?:/tokens(?:/\d+)?)?/?(?:[?#\s"']|$))"""  # a person's id is a path itself
_PRIVATE = (
    (re.compile(r"(/api/v1/conversations/sessions/)[^/?#\s]+"), r"\1{session_id}"),
    (re.compile(rf"(/api/v1/people/)[^?#\s]+?{_END}"), r"\1{user_id}"),
    (re.compile(r"(/mem0/v2/entities/(?:user|agent|run)/)[^/?#\s]+"), r"\1{name}"),
    (re.compile(r"((?:^|[?&])(?:user_id|agent_id|run_id)=)[^&#\s\"']*"), r"\1{id}"),
)
_ENVIRON_KEYS = ("PATH_INFO", "RAW_URI", "REQUEST_URI", "QUERY_STRING")


def path_masked(path: str) -> str:
    """`path` with the segments a client named (session ids, a person's external id)
    replaced by their kind."""
    for pattern, mark in _PRIVATE:
        path = pattern.sub(mark, path)
    return path


def private_paths(app: WSGIApp) -> WSGIApp:
    """`app`, leaving the environ with private path segments masked once it answered."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        try:
            return app(environ, start_response)
        finally:
            for key in _ENVIRON_KEYS:
                value = environ.get(key)
                if isinstance(value, str):
                    environ[key] = path_masked(value)

    return application


class PrivatePathsFilter(logging.Filter):
    """Masks private path segments in the text arguments of every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                path_masked(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        elif isinstance(record.msg, str):
            record.msg = path_masked(record.msg)
        return True
