"""Lineage services: corrections and retractions from conversations, one item replacing
another, and bringing back an earlier version (memory/versions.py describes the model).
Every content change goes through `services._revise`, which keeps the earlier version."""

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import ApiToken
from core.validation import clean_confidence
from memory import notify, versions
from memory.changes import items_changed
from memory.models import CONTENT_MAX, SOURCE_CONFIDENCE, KnowledgeItem, MemoryVersion
from memory.services import _own_turn, _revise, memory_update
from memory.services.fields import clean_fields

RETRACTED_PREFIX = "Retracted: "


def memory_supersede(
    *,
    user: Any,
    item_id: int,
    content: str,
    source: str,
    confidence: float | None = None,
    source_turn: Any = None,
    reason: str = "",
) -> KnowledgeItem:
    """Correct an item's text from a conversation (extraction): the item keeps its id,
    its earlier text is kept as a version, and it now comes from `source`/`source_turn`."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if not item.is_active:
            raise ValidationError("Only an active item can be corrected.", code="inactive")
        cleaned = clean_fields(user, {"content": content}, source=source)
        turn = _own_turn(user, source_turn)
        cleaned.update(
            source=source,
            source_turn=turn,
            confidence=clean_confidence(confidence, default=SOURCE_CONFIDENCE[source]),
        )
        _revise(
            item,
            cleaned,
            source=source,
            reason=reason or "corrected in a conversation",
            agent_id=turn.agent_id if turn is not None else None,
        )
        items_changed(user.pk, upserted=[item.pk])
        notify.item_changed(user=user, kind="memory.updated", item=item)
    return item


def memory_retract(
    *, user: Any, item_id: int, reason: str, source: str, source_turn: Any = None
) -> KnowledgeItem:
    """Withdraw an item found no longer true: it says so (its earlier text is kept as a
    version) and is forgotten; nothing is hard-deleted, restore is explicit."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if not item.is_active:
            raise ValidationError("Only an active item can be retracted.", code="inactive")
        text = f"{RETRACTED_PREFIX}{item.content} (reason: {reason})"[:CONTENT_MAX]
        cleaned = clean_fields(user, {"content": text}, source=source)  # the reason too
        turn = _own_turn(user, source_turn)
        cleaned.update(source=source, source_turn=turn)
        _revise(
            item,
            cleaned,
            source=source,
            reason=f"retracted: {reason}",
            agent_id=turn.agent_id if turn is not None else None,
        )
        item.forgotten_at = timezone.now()
        item.save(update_fields=["forgotten_at"])
        items_changed(user.pk, removed=[item.pk])
        notify.item_changed(user=user, kind="memory.forgotten", item=item, reason="retracted")
    return item


def memory_version_restore(
    *,
    user: Any,
    item_id: int,
    version_id: int,
    source: str = "user",
    token: ApiToken | None = None,
) -> KnowledgeItem:
    """Bring back what a version said as the item's current state (the current state
    becomes a version). Only ever on request: nothing restores a version by itself."""
    version = MemoryVersion.objects.for_user(user).get(pk=version_id, item_id=item_id)
    fields = {name: getattr(version, name) for name in versions.VERSIONED}
    when = version.created_at.isoformat(timespec="seconds")
    return memory_update(
        user=user,
        item_id=item_id,
        source=source,
        token=token,
        reason=f"restored the version replaced at {when}",
        sensitive=version.sensitive,
        **fields,
    )


def memory_supersede_by(*, user: Any, item_id: int, by_id: int) -> KnowledgeItem:
    """Mark an item as replaced by another existing active item of the same user."""
    if item_id == by_id:
        raise ValidationError("An item cannot supersede itself.", code="invalid")
    with transaction.atomic():
        mine = KnowledgeItem.objects.for_user(user).select_for_update()
        old, new = mine.get(pk=item_id), mine.get(pk=by_id)
        if not (old.is_active and new.is_active):
            raise ValidationError("Only active items take part in lineage.", code="inactive")
        old.superseded_by = new
        old.updated_at = timezone.now()
        old.save(update_fields=["superseded_by", "updated_at"])
        items_changed(user.pk, removed=[old.pk])
        notify.item_changed(
            user=user, kind="memory.forgotten", item=old, reason="superseded", superseded_by=new.pk
        )
    return old


def item_conflicts(*, user: Any, item: KnowledgeItem) -> list[KnowledgeItem]:
    """The active items `item` is linked with as a possible conflict, either way, oldest
    first (see memory/dedup.py); they wait for reconciliation to judge them."""
    mine = KnowledgeItem.objects.for_user(user).active()
    linked = mine.filter(Q(pk=item.conflicts_with_id) | Q(conflicts_with=item.pk))
    return list(linked.exclude(pk=item.pk).order_by("created_at", "pk"))


def memory_conflict_settle(*, user: Any, item_ids: tuple[int, int]) -> int:
    """Drop the possible-conflict link between two items once it has been judged; returns
    how many links were dropped. Not an edit: `updated_at` stays."""
    a, b = item_ids
    pair = Q(pk=a, conflicts_with=b) | Q(pk=b, conflicts_with=a)
    return KnowledgeItem.objects.for_user(user).filter(pair).update(conflicts_with=None)
