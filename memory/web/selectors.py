"""Reads only the web pages need, on top of memory.selectors (all scoped by for_user)."""

from typing import Any

from django.db.models import Count, Max

from conversations.models import Session, Turn
from memory.models import KnowledgeItem


def extraction_failures(*, user: Any, limit: int = 5) -> list[dict[str, Any]]:
    """Why extraction failed for the user's turns: each reason with its count, latest first."""
    rows = (
        Turn.objects.for_user(user)
        .filter(extraction_status="failed")
        .values("extraction_error")
        .annotate(count=Count("pk"), latest=Max("timestamp"))
        .order_by("-latest")[:limit]
    )
    return [
        {
            "reason": r["extraction_error"] or "unknown reason",
            "count": r["count"],
            "latest": r["latest"],
        }
        for r in rows
    ]


def sessions_awaiting_consolidation(*, user: Any) -> int:
    return Session.objects.for_user(user).filter(consolidated_at__isnull=True).count()


def lineage(*, user: Any, item: KnowledgeItem, limit: int = 50) -> dict[str, list]:
    """The versions before `item` (oldest first) and after it (newest last).

    Each step is read through for_user, so a chain can never lead into another user's rows.
    """
    items = KnowledgeItem.objects.for_user(user)
    older: list[KnowledgeItem] = []
    frontier = [item.pk]
    seen = {item.pk}
    while frontier and len(older) < limit:
        found = list(items.filter(superseded_by__in=frontier).order_by("-created_at"))
        found = [f for f in found if f.pk not in seen]
        seen.update(f.pk for f in found)
        older.extend(found)
        frontier = [f.pk for f in found]
    newer: list[KnowledgeItem] = []
    current = item
    while current.superseded_by_id and len(newer) < limit:
        current = items.filter(pk=current.superseded_by_id).first()
        if current is None or current.pk in seen:
            break
        seen.add(current.pk)
        newer.append(current)
    return {"older": sorted(older, key=lambda i: i.created_at), "newer": newer}
