"""What a write of turns announces to retrieval (inside its transaction)."""

from collections.abc import Iterable

from conversations.corpus import TURNS
from retrieval import events


def turns_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> None:
    """Announce (inside the write's transaction) that turns of `owner_id` were added or
    deleted."""
    events.changed(TURNS, owner_id, upserted=upserted, removed=removed)
