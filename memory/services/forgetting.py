"""Forgetting and restoring items: a forget hides an item everywhere at once (recall, the
index, the agent's context) and can be undone; nothing here deletes a row."""

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.validation import parse_duration
from memory import notify
from memory.changes import items_changed
from memory.models import CATEGORIES, PRIVILEGED_CATEGORIES, KnowledgeItem


def memory_forget(*, user: Any, item_id: int) -> KnowledgeItem:
    """Soft delete: hidden everywhere at once, restorable."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if item.forgotten_at is None:
            item.forgotten_at = timezone.now()
            item.save(update_fields=["forgotten_at"])
            items_changed(user.pk, removed=[item.pk])
            notify.item_changed(user=user, kind="memory.forgotten", item=item, reason="forgotten")
    return item


def memory_restore(*, user: Any, item_id: int) -> KnowledgeItem:
    """Undo a forget; the item comes back exactly as it was."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if item.forgotten_at is not None:
            item.forgotten_at = None
            item.save(update_fields=["forgotten_at"])
            items_changed(user.pk, upserted=[item.pk])
            notify.item_changed(user=user, kind="memory.updated", item=item, restored=True)
    return item


def memory_forget_bulk(
    *,
    user: Any,
    context: str | None = None,
    older_than: str | None = None,
    categories: Iterable[str] | None = None,
    dry_run: bool = False,
) -> int:
    """Soft-forget active items matching every given filter; returns how many."""
    if not context and not older_than and not categories:
        raise ValidationError("Give at least one of context, older_than, categories.", code="empty")
    qs = KnowledgeItem.objects.for_user(user).filter(forgotten_at__isnull=True)
    if context:
        qs = qs.filter(context=context)
    if older_than:
        qs = qs.filter(created_at__lt=timezone.now() - parse_duration(older_than))
    if categories:
        categories = list(categories)
        bad = [c for c in categories if c not in CATEGORIES + PRIVILEGED_CATEGORIES]
        if bad:
            raise ValidationError({"categories": f"Unknown: {', '.join(map(str, bad))}."})
        qs = qs.filter(category__in=categories)
    if dry_run:
        return qs.count()
    with transaction.atomic():
        ids = list(qs.values_list("pk", flat=True))
        KnowledgeItem.objects.filter(pk__in=ids).update(forgotten_at=timezone.now())
        if ids:
            items_changed(user.pk, removed=ids)
            notify.items_forgotten(user=user, item_ids=ids, reason="forgotten")
    return len(ids)
