"""Queue background tasks after the surrounding transaction commits, never inline."""

import logging
import os
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

log = logging.getLogger("gaia.background")


Task = str | Callable[..., Any]  # a task function, or its dotted path (domain modules)


def enqueue_now(
    func: Task, args: tuple, dedupe_key: str | None = None, dedupe_seconds: int = 300
) -> None:
    """Queue `func(*args)` now (sweeps run outside request transactions).

    With `dedupe_key`, a second call within `dedupe_seconds` queues nothing: best effort,
    shared between processes only through a shared cache (Redis); tasks stay idempotent.
    """
    from django_q.tasks import async_task

    if dedupe_key and not cache.add(dedupe_key, 1, dedupe_seconds):
        return
    async_task(func, *args, task_name=task_name(func, args))


def task_name(func: Task, args: tuple) -> str:
    """`extract_turn:42`: the function and the ids among its arguments, nothing else. The
    worker logs task names at INFO and keeps them in its task records, so a text
    argument (a tool name, some words) must not end up in one."""
    ids = [str(a) for a in args if isinstance(a, int) and not isinstance(a, bool)]
    name = func.rsplit(".", 1)[-1] if isinstance(func, str) else func.__name__
    return ":".join([name, *ids])


def enqueue_on_commit(
    func: Task, *args: Any, dedupe_key: str | None = None, dedupe_seconds: int = 300
) -> None:
    """Queue `func(*args)` (a task function; from a domain module, which may not import
    an edge, its dotted path; id arguments) once the transaction commits.

    A broker failure is logged, not raised: the work stays in its backlog state and the
    periodic sweep queues it again.
    """

    def send() -> None:
        try:
            enqueue_now(func, args, dedupe_key, dedupe_seconds)
        except Exception:
            log.exception("could not queue %s%s; the sweep will pick it up", func, args)

    transaction.on_commit(send)


def lower_worker_priority(**_: Any) -> None:
    """In each task worker process as it starts (django-q2's `post_spawn`): run at
    GAIA_WORKER_NICE, so background work (an import's embedding, extraction, decay)
    takes the cores only when requests leave them idle. Threads started later (the
    embedder's) inherit it. A process can raise its own niceness, never lower it."""
    step = settings.GAIA_WORKER_NICE
    if step <= 0:
        return
    try:
        os.nice(step)
    except OSError as error:  # a platform or sandbox without priorities
        log.warning("could not lower the worker's priority: %s", error)
