"""Queue background tasks after the surrounding transaction commits, never inline."""

import logging
from typing import Any

from django.core.cache import cache
from django.db import transaction

log = logging.getLogger("gaia.background")


def _send(func: str, args: tuple, dedupe_key: str | None, dedupe_seconds: int) -> None:
    from django_q.tasks import async_task

    if dedupe_key and not cache.add(dedupe_key, 1, dedupe_seconds):
        return  # queued recently (best effort: shared only with a shared cache)
    async_task(func, *args, task_name=f"{func.rsplit('.', 1)[-1]}:{':'.join(map(str, args))}")


def enqueue_on_commit(
    func: str, *args: Any, dedupe_key: str | None = None, dedupe_seconds: int = 300
) -> None:
    """Queue `func(*args)` (dotted path, id arguments) once the transaction commits.

    A broker failure is logged, not raised: the work stays in its backlog state and the
    periodic sweep queues it again.
    """

    def send() -> None:
        try:
            _send(func, args, dedupe_key, dedupe_seconds)
        except Exception:
            log.exception("could not queue %s%s; the sweep will pick it up", func, args)

    transaction.on_commit(send)
