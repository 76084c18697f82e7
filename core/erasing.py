"""An erase beats every race: from the moment a person's erase starts, their new writes
are refused with a retryable answer, and a write caught out by it fails cleanly.

`erasure_hold(user)` marks the erase as running (committed at once, so every process
sees it) and as finished when it ends. Meanwhile:

- every API request that could write for the person (any method but GET, HEAD,
  OPTIONS) answers 503 `erase_running` with `Retry-After` (`writes_refused`, called by
  the permission checks of accounts.auth, and by mem0's views for the app's person they
  act for);
- a page's form (any method but GET, HEAD, OPTIONS) answers a 503 page saying so
  (core.server.middleware.EraseHoldMiddleware);
- an agent's writing tool over MCP answers the tool error `erase_running` (the tool
  dispatcher, memory.agent_tools; its reading tools answer as usual);
- a task for the person does nothing now and queues itself again for after the erase
  (`held_during_erase`, on the tasks that write for one person): by the time it runs,
  what it would have worked on is gone;
- a write that began before and fails on a row the erase removed (a foreign key: the
  account, an entity, a session) answers the same 503, never 500 (`integrity_answer`,
  from core.api.conventions's exception handler): while the erase runs, for RECENT after it, or
  when the account is gone.

A marker older than STALE (an erase killed half-way) holds nothing back; running the
erase again finishes it.
"""

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from rest_framework import exceptions, status

from core.models import Erasure
from core.queue import enqueue_now

RETRY_AFTER = 2  # seconds a refused writer waits before trying again
RECENT = timedelta(minutes=1)
STALE = timedelta(hours=1)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class EraseRunning(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "erase_running"
    default_detail = "This person's memory is being erased; try again shortly."

    def __init__(self) -> None:
        super().__init__()
        self.wait = RETRY_AFTER  # DRF's handler turns it into Retry-After


@contextmanager
def erasure_hold(user: Any) -> Iterator[None]:
    """Refuse `user`'s writes while the block runs (see the module docstring)."""
    user_id = user.pk  # the block may delete the account
    with transaction.atomic():
        Erasure.objects.update_or_create(
            user_id=user_id, defaults={"started_at": timezone.now(), "finished_at": None}
        )
    try:
        yield
    finally:
        with transaction.atomic():
            Erasure.objects.filter(user_id=user_id).update(finished_at=timezone.now())


def erasing(user_id: int | None) -> bool:
    """Whether the erase of `user_id` is running now."""
    if user_id is None:
        return False
    since = timezone.now() - STALE
    return Erasure.objects.filter(
        user_id=user_id, finished_at__isnull=True, started_at__gte=since
    ).exists()


def writes_refused(request: Any, user: Any = None) -> None:
    """Raise EraseRunning for a request that may write for a person being erased (the
    request's user, or `user` it acts for)."""
    user = user if user is not None else getattr(request, "user", None)
    if request.method not in SAFE_METHODS and erasing(getattr(user, "pk", None)):
        raise EraseRunning()


DEFERRED = {"deferred": "erase_running"}


def held_during_erase(owner_of: Callable[..., int | None]) -> Callable:
    """A task decorator: while the erase of the person the task's arguments name runs
    (`owner_of(*args)`, their user id), the task does nothing and, after RETRY_AFTER
    seconds, queues itself again; it answers DEFERRED. Whatever it would have read or
    written for them is being erased: run after the erase, it finds nothing. It is queued
    again with its positional arguments, as core.queue queues every task. Tasks run
    inline (GAIA_SYNC_TASKS) are not queued again: nothing would run the erase meanwhile."""

    def decorate(task: Callable) -> Callable:
        @functools.wraps(task)
        def run(*args: Any, **kwargs: Any) -> Any:
            if not erasing(owner_of(*args, **kwargs)):
                return task(*args, **kwargs)
            if not settings.Q_CLUSTER.get("sync"):
                time.sleep(RETRY_AFTER)  # the queue would hand it straight back
                enqueue_now(run, args)
            return DEFERRED

        return run

    return decorate


def _erased_lately(user_id: int) -> bool:
    now = timezone.now()
    if not get_user_model().objects.filter(pk=user_id).exists():
        return True
    return (
        Erasure.objects.filter(user_id=user_id, started_at__gte=now - STALE)
        .filter(finished_at__isnull=True)
        .exists()
        or Erasure.objects.filter(user_id=user_id, finished_at__gte=now - RECENT).exists()
    )


def _user_id(request: Any) -> int | None:
    """Whom the request acts for, without authenticating it again: its user once DRF's
    authentication ended, or the app's person mem0's views act for (`app_person`: there
    the request's user is the app itself)."""
    user = getattr(request, "_user", None)
    if getattr(user, "pk", None) is None:
        user = getattr(getattr(request, "app_person", None), "user", None)
    return getattr(user, "pk", None)


def integrity_answer(request: Any) -> EraseRunning | None:
    """The clean error for an IntegrityError a request met because its person's erase
    removed a row it wrote against; None when no erase explains it."""
    user_id = _user_id(request)
    if user_id is None or not _erased_lately(user_id):
        return None
    return EraseRunning()
