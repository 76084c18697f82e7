"""Decay: what nobody uses fades; what is used, pinned or important stays.

- Confidence x0.9 per 30 idle days (once per idle period, see memory_decay_confidence).
- Retention halves every GAIA_DECAY_HALF_LIFE_DAYS since the item was last used: recalled
  for an agent, or shown to one in the system prompt, the per-turn context or the profile
  (`memory_seen`, at most once a day). An item whose retention x stored importance falls
  under GAIA_DECAY_THRESHOLD, once at least GAIA_DECAY_PRUNE_AGE_DAYS old, fades: it is
  forgotten (restorable), not erased. The stored importance itself is never rewritten.
- Pinned items and items in GAIA_DECAY_EXEMPT_CONTEXTS never decay.
Running the job twice gives the same result.
"""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from memory.models import KnowledgeItem
from memory.services import memory_decay_confidence, memory_forget

IDLE_DAYS = 30
CONFIDENCE_FACTOR = 0.9


def retention_at(*, last_access: Any, now: Any) -> float:
    """How much of an item is left after its idle time (1.0 just used)."""
    days = max(0.0, (now - last_access).total_seconds() / 86400)
    return 0.5 ** (days / max(settings.GAIA_DECAY_HALF_LIFE_DAYS, 1e-6))


def decay_user(*, user: Any, dry_run: bool = False, now: Any = None) -> dict[str, int]:
    """Apply decay to one user's active, non-exempt, unpinned items; counts of what changed."""
    now = now or timezone.now()
    idle_before = now - timedelta(days=IDLE_DAYS)
    old_before = now - timedelta(days=settings.GAIA_DECAY_PRUNE_AGE_DAYS)
    items = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(pinned=False)
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
    faded = [
        pk
        for pk, used, created, updated, _, importance in rows
        if created < old_before
        and importance * retention_at(last_access=max(used or created, updated), now=now)
        < settings.GAIA_DECAY_THRESHOLD
    ]
    if dry_run:
        return {"confidence_decayed": len(stale), "faded": len(faded)}
    decayed = memory_decay_confidence(
        user=user, item_ids=stale, factor=CONFIDENCE_FACTOR, idle_before=idle_before
    )
    for pk in faded:
        memory_forget(user=user, item_id=pk)
    return {"confidence_decayed": decayed, "faded": len(faded)}


def decay_everyone() -> dict[str, int]:
    """Decay for every active user (database only, no LLM); totals."""
    totals = {"users": 0, "confidence_decayed": 0, "faded": 0}
    for user in get_user_model().objects.filter(is_active=True).order_by("pk").iterator():
        totals["users"] += 1
        for key, value in decay_user(user=user).items():
            totals[key] += value
    return totals
