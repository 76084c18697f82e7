"""What memory's writes tell webhooks (docs/webhooks.md): each service calls these inside
the transaction of its change, so the event is queued exactly when the change commits.

Receivers get the item's own fields only (never another item's text but the one it may
conflict with, which is the same person's).
"""

from collections.abc import Iterable
from typing import Any

from memory.models import KnowledgeItem
from webhooks.services import events_emit, item_events_redact

SHOWN = ("content", "category", "domain", "context", "entity", "sensitive", "pinned", "source")


def item_data(item: KnowledgeItem) -> dict[str, Any]:
    """The item as receivers see it."""
    data: dict[str, Any] = {"id": item.pk, **{name: getattr(item, name) for name in SHOWN}}
    for name in ("created_at", "updated_at", "forgotten_at"):
        value = getattr(item, name)
        data[name] = value.isoformat() if value is not None else None
    return data


def items_written(*, user: Any, items: Iterable[KnowledgeItem]) -> int:
    """Stored items (`memory_create` and friends): memory.created for a new row,
    memory.updated for a fold into an existing one, and conflict.found beside a new row
    linked to an item that may say otherwise."""
    events: list[tuple[str, int | None, dict]] = []
    conflicts: dict[int, KnowledgeItem] = {}
    items = list(items)
    linked = {i.conflicts_with_id for i in items if getattr(i, "outcome", "") == "conflict"}
    if linked - {None}:
        conflicts = KnowledgeItem.objects.for_user(user).in_bulk(linked - {None})
    for item in items:
        outcome = getattr(item, "outcome", "new")
        kind = "memory.updated" if outcome == "deduplicated" else "memory.created"
        events.append((kind, item.pk, {"item": item_data(item), "outcome": outcome}))
        other = conflicts.get(item.conflicts_with_id) if outcome == "conflict" else None
        if other is not None:
            found = {"item": item_data(item), "conflicts_with": item_data(other)}
            events.append(("conflict.found", item.pk, found))
    return events_emit(user=user, events=events)


def item_changed(*, user: Any, kind: str, item: KnowledgeItem, **extra: Any) -> int:
    """One item changed (`kind`: memory.updated or memory.forgotten); `extra` says how."""
    return events_emit(user=user, events=[(kind, item.pk, {"item": item_data(item), **extra})])


def items_forgotten(*, user: Any, item_ids: Iterable[int], reason: str) -> int:
    """Several items forgotten at once (a bulk forget)."""
    rows = KnowledgeItem.objects.for_user(user).filter(pk__in=list(item_ids)).order_by("pk")
    events = [
        ("memory.forgotten", row.pk, {"item": item_data(row), "reason": reason}) for row in rows
    ]
    return events_emit(user=user, events=events)


def items_erased(*, user: Any, item_ids: Iterable[int]) -> int:
    """Items hard-deleted: earlier events keep only their ids, and memory.erased says
    which (with no text: it is gone)."""
    ids = sorted(set(item_ids))
    item_events_redact(user=user, item_ids=ids)
    return events_emit(
        user=user, events=[("memory.erased", pk, {"item": {"id": pk}}) for pk in ids]
    )
