"""The consolidation states of turns and sessions, moved by learning's consolidation. The
conditions (`consolidated_at` still null) make its tasks idempotent: keep them exact."""

from datetime import datetime

from django.db.models import F

from conversations import signals
from conversations.models import Session, Turn


def turns_consolidation_skip(*, turn_ids: list[int], when: datetime) -> int:
    """Stamp these turns consolidated at `when` unconditionally (nothing learned from them)."""
    return Turn.objects.filter(pk__in=turn_ids).update(consolidated_at=when)


def turns_consolidation_drop(*, turn_ids: list[int], when: datetime) -> int:
    """Stamp those of these turns not yet consolidated (a batch given up on)."""
    return Turn.objects.filter(pk__in=turn_ids, consolidated_at__isnull=True).update(
        consolidated_at=when
    )


def turns_consolidation_claim(*, turn_ids: list[int], owner_id: int, when: datetime) -> int:
    """Stamp the owner's turns not yet consolidated; returns how many this run claimed."""
    return Turn.objects.filter(
        pk__in=turn_ids, owner_id=owner_id, consolidated_at__isnull=True
    ).update(consolidated_at=when)


def session_consolidation_failed(*, session_pk: int) -> int:
    """Count one failed consolidation attempt on the session."""
    return Session.objects.filter(pk=session_pk).update(
        consolidation_attempts=F("consolidation_attempts") + 1
    )


def session_consolidation_reset(*, session_pk: int) -> int:
    """Clear the session's count of failed consolidation attempts."""
    return Session.objects.filter(pk=session_pk).update(consolidation_attempts=0)


def session_consolidated(*, session: Session, when: datetime, summary: str) -> int:
    """Stamp the session consolidated, reset its attempts, append `summary` (last 8000
    chars); apps above hear that the session is finished (skills learn from it)."""
    signals.session_finished.send(sender=Session, session=session)
    return Session.objects.filter(pk=session.pk).update(
        consolidated_at=when,
        consolidation_attempts=0,
        summary=f"{session.summary}\n\n{summary}".strip()[-8000:],
    )
