"""Forgetting and restoring items: a forget hides an item everywhere at once (recall, the
index, the agent's context) and can be undone; nothing here deletes a row."""

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.validation import parse_duration
from graph.selectors import filter_keys
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
    entity: str | None = None,
    older_than: str | None = None,
    categories: Iterable[str] | None = None,
    dry_run: bool = False,
) -> int:
    """Soft-forget active items matching every given filter; returns how many."""
    return len(
        memory_forget_matching(
            user=user,
            context=context,
            entity=entity,
            older_than=older_than,
            categories=categories,
            dry_run=dry_run,
        )
    )


def memory_forget_matching(
    *,
    user: Any,
    context: str | None = None,
    entity: str | None = None,
    older_than: str | None = None,
    categories: Iterable[str] | None = None,
    dry_run: bool = False,
) -> list[int]:
    """Soft-forget the active items matching every given filter (a scope: `context`,
    `entity` with its aliases; an age: created more than `older_than` ago; `categories`);
    the ids forgotten, oldest first (dry run: that would be). Each stays restorable."""
    if not context and not entity and not older_than and not categories:
        raise ValidationError(
            "Give at least one of context, entity, older_than, categories.", code="empty"
        )
    qs = KnowledgeItem.objects.for_user(user).filter(forgotten_at__isnull=True)
    if context:
        qs = qs.filter(context=context)
    if entity:
        qs = qs.filter(entity__in=filter_keys(user=user, entity=entity))
    if older_than:
        qs = qs.filter(created_at__lt=timezone.now() - parse_duration(older_than))
    if categories:
        categories = list(categories)
        bad = [c for c in categories if c not in CATEGORIES + PRIVILEGED_CATEGORIES]
        if bad:
            raise ValidationError({"categories": f"Unknown: {', '.join(map(str, bad))}."})
        qs = qs.filter(category__in=categories)
    if dry_run:
        return list(qs.order_by("pk").values_list("pk", flat=True))
    with transaction.atomic():
        ids = list(qs.order_by("pk").values_list("pk", flat=True))
        KnowledgeItem.objects.filter(pk__in=ids).update(forgotten_at=timezone.now())
        if ids:
            items_changed(user.pk, removed=ids)
            notify.items_forgotten(user=user, item_ids=ids, reason="forgotten")
    return ids
