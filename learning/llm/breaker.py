"""A circuit breaker whose state every process shares (the `LLMState` row).

After `threshold` transient failures in a row (any process), calls fail fast until the
cool-down ends; then one call, in one process, probes whether the server is back (a
conditional UPDATE hands out that trial once). Its outcome closes or re-opens the
circuit. The web process never calls the model, but it reads the same row: the health
check and the dashboard say "failing" or "circuit open" while the workers see it.
Bookkeeping never breaks a call: a database error here is logged and ignored.
"""

import logging
from datetime import timedelta
from typing import Any

from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from learning.models import LLMState

log = logging.getLogger("gaia.llm")
KEY = "llm"
OK, FAILING, OPEN = "ok", "failing", "open"


def state_row() -> LLMState | None:
    try:
        return LLMState.objects.filter(key=KEY).first()
    except DatabaseError:
        log.exception("could not read the LLM state")
        return None


class SharedBreaker:
    def __init__(self, *, threshold: int, cooldown: float) -> None:
        self.threshold = max(1, threshold)
        self.cooldown = timedelta(seconds=max(0.0, cooldown))

    @property
    def state(self) -> str:
        """closed (calls go through), open (failing fast) or half-open (trial due)."""
        row = state_row()
        if row is None or row.state != OPEN:
            return "closed"
        return "open" if row.open_until and timezone.now() < row.open_until else "half-open"

    def troubled(self) -> bool:
        """Whether the last calls failed (failing or open), in any process."""
        row = state_row()
        return row is not None and row.state != OK

    def allow(self) -> bool:
        row = state_row()
        if row is None or row.state != OPEN:
            return True
        now = timezone.now()
        if row.open_until and now < row.open_until:
            return False
        try:  # the cool-down is over: one trial call, whichever process claims it first
            return bool(
                LLMState.objects.filter(pk=row.pk, state=OPEN, open_until__lte=now).update(
                    open_until=now + self.cooldown
                )
            )
        except DatabaseError:
            log.exception("could not claim the LLM trial call")
            return True

    def success(self) -> None:
        try:
            LLMState.objects.filter(key=KEY).exclude(state=OK, failures=0).update(
                state=OK, since=timezone.now(), failures=0, open_until=None
            )
        except DatabaseError:
            log.exception("could not record an LLM success")

    def failure(self, kind: str) -> None:
        try:
            self._failure(kind)
        except DatabaseError:
            log.exception("could not record an LLM failure")

    def _failure(self, kind: str) -> None:
        now = timezone.now()
        with transaction.atomic():
            row = _locked_row()
            row.failures += 1
            opening = row.state == OPEN or row.failures >= self.threshold
            if row.state == OK:
                row.since = now
            row.state = OPEN if opening else FAILING
            if opening:
                row.open_until = now + self.cooldown
            row.last_kind, row.last_failure_at = kind, now
            row.save()


def _locked_row() -> Any:
    row = LLMState.objects.select_for_update().filter(key=KEY).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            return LLMState.objects.create(key=KEY)
    except IntegrityError:  # created by another process meanwhile
        return LLMState.objects.select_for_update().get(key=KEY)
