"""What every knowledge write announces, so caches of search state stay correct.

Bumps the owner's index generation in the same transaction as the write: any process
whose cached vector index was built at an older generation rebuilds before its next
search. Listeners (the in-process vector index) are told which ids changed.
Conversation turns have their own counter (`turns_changed`), so logging turns does not
invalidate other processes' knowledge indexes.
"""

from collections.abc import Callable, Iterable

from django.db.models import F

from retrieval.models import IndexGeneration

Listener = Callable[[int, list[int], list[int]], None]
_listeners: list[Listener] = []
_turn_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Register `listener(owner_id, upserted_ids, removed_ids)`, called after a bump."""
    if listener not in _listeners:
        _listeners.append(listener)


def listen_turns(listener: Listener) -> None:
    """Like `listen`, for conversation turns."""
    if listener not in _turn_listeners:
        _turn_listeners.append(listener)


def generation_get(owner_id: int) -> int:
    row = IndexGeneration.objects.filter(user_id=owner_id).values_list("value", flat=True)
    return row.first() or 0


def items_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> int:
    """Record that items of `owner_id` changed; returns the new generation."""
    upserted, removed = list(upserted), list(removed)
    updated = IndexGeneration.objects.filter(user_id=owner_id).update(value=F("value") + 1)
    if not updated:
        _, created = IndexGeneration.objects.get_or_create(user_id=owner_id, defaults={"value": 1})
        if not created:
            IndexGeneration.objects.filter(user_id=owner_id).update(value=F("value") + 1)
    for listener in _listeners:
        listener(owner_id, upserted, removed)
    return generation_get(owner_id)


def turns_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> None:
    """Record that turns of `owner_id` were added or deleted (inside the write's transaction)."""
    upserted, removed = list(upserted), list(removed)
    rows = IndexGeneration.objects.filter(user_id=owner_id)
    if not rows.update(turn_value=F("turn_value") + 1):
        IndexGeneration.objects.get_or_create(user_id=owner_id)
        rows.update(turn_value=F("turn_value") + 1)
    for listener in _turn_listeners:
        listener(owner_id, upserted, removed)
