"""Dating items by when they happened: a migrated history keeps its dates."""

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memory.changes import items_changed
from memory.models import KnowledgeItem

CLOCK_SKEW = timedelta(minutes=5)  # a caller's clock a little ahead is no error


def memory_date(*, user: Any, item_ids: Iterable[int], when: datetime) -> int:
    """Date the user's items `item_ids` at `when` (an aware moment, not in the future
    beyond `CLOCK_SKEW`): created and last changed then, as if stored at that moment.
    Returns how many."""
    if timezone.is_naive(when):
        raise ValidationError({"timestamp": "Must be an aware moment."}, code="invalid")
    if when > timezone.now() + CLOCK_SKEW:
        raise ValidationError({"timestamp": "Must not be in the future."}, code="invalid")
    ids = list(item_ids)
    if not ids:
        return 0
    with transaction.atomic():
        dated = (
            KnowledgeItem.objects.for_user(user)
            .filter(pk__in=ids)
            .update(created_at=when, updated_at=when)
        )
        items_changed(user.pk, upserted=ids)
    return dated
