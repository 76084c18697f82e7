"""The extraction states of turns, moved by learning's extraction jobs (claim, skip,
fail, retry) and by the owner (retry). The conditions (`extraction_status` still
"pending") make learning's tasks idempotent: keep them exact."""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from conversations import signals
from conversations.models import Turn

# A turn the owner sends back to extraction starts over: pending, no attempts, no error.
_EXTRACT_AGAIN: dict[str, Any] = {
    "extraction_status": "pending",
    "extraction_attempts": 0,
    "extraction_error": "",
    "extraction_refused": 0,
    "extraction_failing_since": None,
    "extraction_retry_at": None,
}


def turn_extraction_skip(*, turn_id: int) -> int:
    """Mark a still-pending turn as skipped (extraction is off); returns rows changed."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_status="skipped"
    )


def turn_extraction_attempt_failed(*, turn_id: int, message: str) -> int:
    """Count one failed extraction attempt on a still-pending turn and record its error."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_attempts=F("extraction_attempts") + 1, extraction_error=message
    )


def turn_extraction_retry_later(
    *, turn_id: int, message: str, retry_at: datetime, attempted: bool
) -> int:
    """Keep a still-pending turn for a later try (the model is unreachable): record the
    error, when the trouble began (kept from the first failure) and when to try next."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_attempts=F("extraction_attempts") + int(attempted),
        extraction_error=message,
        extraction_failing_since=Coalesce("extraction_failing_since", timezone.now()),
        extraction_retry_at=retry_at,
    )


def turn_extraction_failed(*, turn_id: int, message: str | None = None) -> int:
    """Give up on a still-pending turn: its extraction ends as failed."""
    fields: dict[str, Any] = {"extraction_status": "failed", "extraction_retry_at": None}
    if message is not None:
        fields["extraction_error"] = message
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(**fields)


def turn_extraction_claim(*, turn_id: int, owner_id: int) -> bool:
    """Move the owner's pending turn to done; True when this run claimed it."""
    claimed = Turn.objects.filter(
        pk=turn_id, owner_id=owner_id, extraction_status="pending"
    ).update(
        extraction_status="done",
        extraction_error="",
        extraction_refused=0,
        extraction_failing_since=None,
        extraction_retry_at=None,
    )
    return bool(claimed)


def turn_extraction_refused(*, turn_id: int, refused: int, applied: bool, message: str) -> int:
    """Record operations of the model's answer that were refused on a claimed turn: it is
    "partial" when something else was applied or skipped, "failed" when nothing was;
    never "done", so no proposed fact is lost without a trace."""
    return Turn.objects.filter(pk=turn_id, extraction_status="done").update(
        extraction_status="partial" if applied else "failed",
        extraction_refused=refused,
        extraction_error=message[:500],
    )


def turn_extraction_retry(*, user: Any, turn_id: int) -> Turn:
    """Put the user's failed or partial turn back in the extraction queue (a person asked).

    Another user's turn is Turn.DoesNotExist; a turn in any other state is left as it is.
    """
    turn = Turn.objects.for_user(user).get(pk=turn_id)
    if turn.extraction_status not in ("failed", "partial"):
        return turn
    with transaction.atomic():
        Turn.objects.filter(pk=turn.pk, extraction_status=turn.extraction_status).update(
            **_EXTRACT_AGAIN
        )
        turn.refresh_from_db()
        if turn.extraction_status == "pending":
            signals.turn_pending.send(sender=Turn, turn=turn)  # learning queues it on commit
    return turn


def turns_extraction_retry_failed(*, user: Any) -> int:
    """Put all of the user's failed turns back to pending (the command's --retry-failed)."""
    return Turn.objects.for_user(user).filter(extraction_status="failed").update(**_EXTRACT_AGAIN)


def turns_batch_extraction_skip(*, user: Any, turn_id: int) -> int:
    """Never extract the consolidation batch of this turn again (pending/failed -> skipped).

    A consolidated fact comes from a whole batch of turns (its source turn is only the
    last one): none of the batch is extracted again; their text stays as history.
    """
    anchor = Turn.objects.for_user(user).filter(pk=turn_id).first()
    if anchor is None or anchor.consolidated_at is None:
        return 0
    return (
        Turn.objects.for_user(user)
        .filter(session_id=anchor.session_id, consolidated_at=anchor.consolidated_at)
        .filter(extraction_status__in=("pending", "failed"))
        .update(extraction_status="skipped")
    )
