"""Prune: turns and tool calls older than 90 days; knowledge with confidence < 0.1 not
used for 90 days and not pinned (hard erase through memory_erase: row, full-text entry
and vector); webhook deliveries done more than GAIA_WEBHOOK_KEEP_DAYS ago."""

from datetime import timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from conversations.services.redaction import tool_calls_prune, turns_prune
from memory.models import KnowledgeItem
from privacy import storage
from privacy.services import memory_erase
from retrieval.snapshots import snapshots_erase
from webhooks.services import deliveries_prune

KEEP_DAYS = 90
LOW_CONFIDENCE = 0.1


def prune_user(*, user: Any, dry_run: bool = False, now: Any = None) -> dict[str, int]:
    """Delete one user's old history and long-unused, low-confidence knowledge."""
    before = (now or timezone.now()) - timedelta(days=KEEP_DAYS)
    unused = Q(last_used__lt=before) | Q(last_used__isnull=True, created_at__lt=before)
    weak = list(
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(unused, confidence__lt=LOW_CONFIDENCE, pinned=False)
        .values_list("pk", flat=True)
    )
    turns = turns_prune(user=user, before=before, dry_run=dry_run)
    calls = tool_calls_prune(user=user, before=before, dry_run=dry_run)
    if not dry_run:
        for pk in weak:
            memory_erase(user=user, item_id=pk)
        if turns and not weak:  # deleted turns leave the full-text segments too
            storage.purge_after_commit()
        if turns:  # and the turns' index snapshot (an erased item's went with it)
            snapshots_erase(user.pk)
    return {"turns": turns, "tool_calls": calls, "knowledge": len(weak)}


def prune_everyone() -> dict[str, int]:
    """Prune for every user (database only); totals."""
    from django.contrib.auth import get_user_model

    totals = {"users": 0, "turns": 0, "tool_calls": 0, "knowledge": 0}
    for user in get_user_model().objects.order_by("pk").iterator():
        totals["users"] += 1
        for key, value in prune_user(user=user).items():
            totals[key] += value
    totals["webhook_deliveries"] = deliveries_prune()  # delivered, GAIA_WEBHOOK_KEEP_DAYS
    return totals
