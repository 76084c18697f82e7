"""What use does to items: recall's side effects (confidence, use count, last use), being
shown to an agent, and the confidence decay of items left unused; and the day's usage
counts (searches, memories used, skills applied) for stats."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Least
from django.utils import timezone

from memory.models import USAGE_KINDS, KnowledgeItem, UsageDay

RECALL_CONFIDENCE_BUMP = 0.02


def memory_touch(*, user: Any, item_ids: Iterable[int], when: datetime | None = None) -> int:
    """Recall side effects in one query: confidence +0.02 (max 1), use_count +1, last_used;
    and the day's usage: one search, `len(item_ids)` memories used."""
    ids = list(item_ids)
    usage_add(user=user, counts={"searches": 1, "memories_used": len(ids)})
    if not ids:
        return 0
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(pk__in=ids)
        .update(
            confidence=Least(F("confidence") + RECALL_CONFIDENCE_BUMP, Value(1.0)),
            use_count=F("use_count") + 1,
            last_used=when or timezone.now(),
        )
    )


def memory_seen(*, user: Any, item_ids: Iterable[int], when: datetime | None = None) -> int:
    """Items shown to an agent (system prompt, per-turn context, profile) count as used
    for decay: `last_used` moves to now, at most once a day per item, in one query."""
    ids = list(item_ids)
    if not ids:
        return 0
    now = when or timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(pk__in=ids)
        .filter(Q(last_used__isnull=True) | Q(last_used__lt=day_start))
        .update(last_used=now)
    )


def memory_decay_confidence(
    *, user: Any, item_ids: Iterable[int], factor: float, idle_before: datetime
) -> int:
    """Multiply confidence by `factor` once per idle period (background decay).

    Only items still unused, unchanged and undecayed since `idle_before` are touched, so
    a second run in the same period changes nothing. `updated_at` is left alone: decay
    is not an edit.
    """
    idle = (
        (Q(last_used__isnull=True) | Q(last_used__lt=idle_before))
        & Q(updated_at__lt=idle_before)
        & (Q(decayed_at__isnull=True) | Q(decayed_at__lt=idle_before))
    )
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(idle, pk__in=list(item_ids))
        .update(confidence=F("confidence") * factor, decayed_at=timezone.now())
    )


def usage_add(*, user: Any, counts: dict[str, int]) -> None:
    """Add `counts` ({kind: n}) to today's usage counters of `user`: one UPDATE once the
    day's rows exist; a row another request creates first is added to, not doubled."""
    counts = {kind: n for kind, n in counts.items() if n > 0}
    unknown = set(counts) - set(USAGE_KINDS)
    if unknown:
        raise ValueError(f"unknown usage kinds {sorted(unknown)}")
    if not counts:
        return
    day = timezone.now().date()
    rows = UsageDay.objects.filter(owner_id=user.pk, day=day)
    step = Case(*(When(kind=kind, then=Value(n)) for kind, n in counts.items()), default=0)
    if rows.filter(kind__in=counts).update(count=F("count") + step) == len(counts):
        return
    have = set(rows.filter(kind__in=counts).values_list("kind", flat=True))
    for kind in set(counts) - have:  # the day's first use of this kind
        try:
            with transaction.atomic():
                UsageDay.objects.create(owner_id=user.pk, day=day, kind=kind, count=counts[kind])
                continue
        except IntegrityError:  # another request made today's row first
            pass
        rows.filter(kind=kind).update(count=F("count") + counts[kind])
