"""What every knowledge or turn write announces, so caches of search state stay correct.

Each announcement bumps the owner's index generation of that corpus (one counter,
`retrieval.corpus.generation_bump`) in the same transaction as the write: any process
whose cached vector index was built at an older generation catches up before its next
search, re-reading only the rows the change log names (`retrieval.changelog`).
Listeners (the in-process vector index) are told which ids changed. Conversation turns
have their own counter, so logging turns does not invalidate knowledge indexes.
"""

from collections.abc import Callable, Iterable

from retrieval.corpus import ITEMS, TURNS, generation_bump, generation_read

Listener = Callable[[int, list[int], list[int], int], None]
_listeners: list[Listener] = []
_turn_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Register `listener(owner_id, upserted_ids, removed_ids, generation)`, called after
    a bump with the generation it made."""
    if listener not in _listeners:
        _listeners.append(listener)


def listen_turns(listener: Listener) -> None:
    """Like `listen`, for conversation turns."""
    if listener not in _turn_listeners:
        _turn_listeners.append(listener)


def generation_get(owner_id: int) -> int:
    """The owner's knowledge generation (0 before the first write)."""
    return generation_read(ITEMS, owner_id)


def items_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> int:
    """Record that items of `owner_id` changed; returns the new generation."""
    upserted, removed = list(upserted), list(removed)
    generation = generation_bump(ITEMS, owner_id, [*upserted, *removed])
    for listener in _listeners:
        listener(owner_id, upserted, removed, generation)
    return generation


def turns_changed(
    owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> None:
    """Record that turns of `owner_id` were added or deleted (inside the write's transaction)."""
    upserted, removed = list(upserted), list(removed)
    generation = generation_bump(TURNS, owner_id, [*upserted, *removed])
    for listener in _turn_listeners:
        listener(owner_id, upserted, removed, generation)
