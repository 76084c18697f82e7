"""Decay: confidence x0.9 per 30 idle days, importance half-life 30 days, and the
soft removal of items whose importance fell under 0.05 after 30+ days.

Items in GAIA_DECAY_EXEMPT_CONTEXTS never decay. Importance is recomputed from the
last access (0.5 ** (days since last use, or creation, / 30)), so running the job twice
gives the same values; confidence decays once per idle period (see
memory_decay_confidence). Faded items are forgotten (restorable), not erased.
"""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from memory.models import KnowledgeItem
from memory.services import memory_decay_confidence, memory_forget, memory_importance_set

IDLE_DAYS = 30
CONFIDENCE_FACTOR = 0.9
HALF_LIFE_DAYS = 30
FADED_BELOW = 0.05
FADED_MIN_AGE_DAYS = 30


def importance_at(*, last_access: Any, now: Any) -> float:
    days = max(0.0, (now - last_access).total_seconds() / 86400)
    return 0.5 ** (days / HALF_LIFE_DAYS)


def decay_user(*, user: Any, dry_run: bool = False, now: Any = None) -> dict[str, int]:
    """Apply decay to one user's active, non-exempt items; counts of what changed."""
    now = now or timezone.now()
    idle_before = now - timedelta(days=IDLE_DAYS)
    items = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .exclude(context__in=settings.GAIA_DECAY_EXEMPT_CONTEXTS)
    )
    rows = list(
        items.values_list("pk", "last_used", "created_at", "updated_at", "decayed_at", "importance")
    )
    stale = [
        pk
        for pk, used, _, updated, decayed, _ in rows
        if (used is None or used < idle_before)
        and updated < idle_before
        and (decayed is None or decayed < idle_before)
    ]
    importance = {
        pk: importance_at(last_access=used or created, now=now)
        for pk, used, created, _, _, _ in rows
    }
    current = {row[0]: row[5] for row in rows}
    changed = {pk: v for pk, v in importance.items() if abs(v - current[pk]) > 0.001}
    faded = [
        pk
        for pk, _, created, _, _, _ in rows
        if importance[pk] < FADED_BELOW and created < now - timedelta(days=FADED_MIN_AGE_DAYS)
    ]
    if dry_run:
        return {
            "confidence_decayed": len(stale),
            "importance_changed": len(changed),
            "faded": len(faded),
        }
    decayed = memory_decay_confidence(
        user=user, item_ids=stale, factor=CONFIDENCE_FACTOR, idle_before=idle_before
    )
    memory_importance_set(user=user, values=changed)
    for pk in faded:
        memory_forget(user=user, item_id=pk)
    return {"confidence_decayed": decayed, "importance_changed": len(changed), "faded": len(faded)}


def decay_everyone() -> dict[str, int]:
    """Decay for every active user (database only, no LLM); totals."""
    from django.contrib.auth import get_user_model

    totals = {"users": 0, "confidence_decayed": 0, "importance_changed": 0, "faded": 0}
    for user in get_user_model().objects.filter(is_active=True).order_by("pk").iterator():
        totals["users"] += 1
        for key, value in decay_user(user=user).items():
            totals[key] += value
    return totals
