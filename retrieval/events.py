"""What every knowledge or turn write announces, so caches of search state stay correct.

Each announcement bumps the owner's index generation of that corpus (one counter,
`retrieval.corpus.generation_bump`) in the same transaction as the write: any process
whose cached vector index was built at an older generation catches up before its next
search, re-reading only the rows the change log names (`retrieval.changelog`).
Listeners (the in-process vector index) are told which ids changed. Conversation turns
have their own counter, so logging turns does not invalidate knowledge indexes.
"""

from collections.abc import Callable, Iterable

from retrieval.corpus import Corpus
from retrieval.generations import generation_bump, generation_read

Listener = Callable[[Corpus, int, list[int], list[int], int], None]
_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Register `listener(corpus, owner_id, upserted_ids, removed_ids, generation)`,
    called after every bump with the generation it made."""
    if listener not in _listeners:
        _listeners.append(listener)


def generation(corpus: Corpus, owner_id: int) -> int:
    """The owner's generation of `corpus` (0 before the first write)."""
    return generation_read(corpus, owner_id)


def changed(
    corpus: Corpus, owner_id: int, *, upserted: Iterable[int] = (), removed: Iterable[int] = ()
) -> int:
    """Record that rows of `corpus` of `owner_id` changed (inside the write's transaction);
    returns the new generation."""
    upserted, removed = list(upserted), list(removed)
    generation = generation_bump(corpus, owner_id, [*upserted, *removed])
    for listener in _listeners:
        listener(corpus, owner_id, upserted, removed, generation)
    return generation
