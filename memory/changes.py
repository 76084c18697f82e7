"""What a write of items announces to retrieval (inside its transaction), and the owner's
items generation."""

from collections.abc import Iterable

from memory.corpus import ITEMS
from retrieval import events


def items_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> int:
    """Announce (inside the write's transaction) that items of `owner_id` changed; returns
    the owner's new items generation."""
    return events.changed(ITEMS, owner_id, upserted=upserted, removed=removed)


def items_generation(owner_id: int) -> int:
    """The owner's items generation (0 before the first write)."""
    return events.generation(ITEMS, owner_id)
