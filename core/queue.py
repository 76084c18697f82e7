"""Queue background tasks after the surrounding transaction commits, never inline."""

import logging
from typing import Any

from django.core.cache import cache
from django.db import transaction

log = logging.getLogger("gaia.background")


def enqueue_now(
    func: str, args: tuple, dedupe_key: str | None = None, dedupe_seconds: int = 300
) -> None:
    """Queue `func(*args)` now (sweeps run outside request transactions).

    With `dedupe_key`, a second call within `dedupe_seconds` queues nothing: best effort,
    shared between processes only through a shared cache (Redis); tasks stay idempotent.
    """
    from django_q.tasks import async_task

    if dedupe_key and not cache.add(dedupe_key, 1, dedupe_seconds):
        return
    async_task(func, *args, task_name=task_name(func, args))


def task_name(func: str, args: tuple) -> str:
    """`extract_turn:42`: the function and the ids among its arguments, nothing else. The
    worker logs task names at INFO and keeps them in its task records, so a text
    argument (a tool name, some words) must not end up in one."""
    ids = [str(a) for a in args if isinstance(a, int) and not isinstance(a, bool)]
    return ":".join([func.rsplit(".", 1)[-1], *ids])


def enqueue_on_commit(
    func: str, *args: Any, dedupe_key: str | None = None, dedupe_seconds: int = 300
) -> None:
    """Queue `func(*args)` (dotted path, id arguments) once the transaction commits.

    A broker failure is logged, not raised: the work stays in its backlog state and the
    periodic sweep queues it again.
    """

    def send() -> None:
        try:
            enqueue_now(func, args, dedupe_key, dedupe_seconds)
        except Exception:
            log.exception("could not queue %s%s; the sweep will pick it up", func, args)

    transaction.on_commit(send)
