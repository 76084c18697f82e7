"""Lineage services: corrections and retractions from conversations, one item replacing
another, and bringing back an earlier version (memory/versions.py describes the model).
Every content change goes through `services._revise`, which keeps the earlier version."""

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken
from core.validation import clean_confidence
from memory import versions
from memory.models import CONTENT_MAX, SOURCE_CONFIDENCE, KnowledgeItem, MemoryVersion
from memory.services import _clean_fields, _own_turn, _revise, memory_update
from retrieval import events

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
        cleaned = _clean_fields(user, {"content": content}, source=source)
        cleaned.update(
            source=source,
            source_turn=_own_turn(user, source_turn),
            confidence=clean_confidence(confidence, default=SOURCE_CONFIDENCE[source]),
        )
        _revise(item, cleaned, source=source, reason=reason or "corrected in a conversation")
        events.items_changed(user.pk, upserted=[item.pk])
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
        cleaned = _clean_fields(user, {"content": text}, source=source)  # the reason too
        cleaned.update(source=source, source_turn=_own_turn(user, source_turn))
        _revise(item, cleaned, source=source, reason=f"retracted: {reason}")
        item.forgotten_at = timezone.now()
        item.save(update_fields=["forgotten_at"])
        events.items_changed(user.pk, removed=[item.pk])
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
        events.items_changed(user.pk, removed=[old.pk])
    return old
