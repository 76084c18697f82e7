"""Embedding on write: every knowledge or turn write reaches the vector index once, on commit.

Listeners registered with `retrieval.events` collect the ids a transaction changed; one
callback per transaction (transaction.on_commit) then updates this process's index and
embeds the new texts in one batch (those a service embedded ahead of its transaction,
`retrieval.embedding.ahead`, are stored with their rows and need nothing more). A
rolled-back transaction drops its callback, so nothing is embedded or indexed for it.
"""

import logging

from django.db import transaction

from core.server import health
from retrieval import events
from retrieval.corpus import Corpus, named
from retrieval.embedding.ahead import store_ahead
from retrieval.embedding.health import embedder_health
from retrieval.embedding.services import sync_committed

log = logging.getLogger(__name__)


class _PendingWrites:
    """The changes of one transaction: (corpus, owner) -> ids and generation range."""

    def __init__(self) -> None:
        self.changes: dict[tuple[str, int], list] = {}
        self.flushed = False

    def add(self, corpus: Corpus, owner_id: int, ids: list[int], generation: int) -> None:
        entry = self.changes.get((corpus.name, owner_id))
        if entry is None:
            # The first bump of this transaction moved the counter from generation - 1.
            self.changes[(corpus.name, owner_id)] = [set(ids), generation - 1, generation]
        else:
            entry[0].update(ids)
            entry[2] = generation

    def __call__(self) -> None:

        self.flushed = True
        for (name, owner_id), (ids, first, last) in self.changes.items():
            try:
                sync_committed(named(name), owner_id, sorted(ids), first, last)
            except Exception:  # the write is committed; the backfill repairs what failed
                log.exception("post-commit embedding of %s for owner %s failed", name, owner_id)


def _pending() -> _PendingWrites | None:
    """This transaction's collector (registered on first use), or None in autocommit."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        return None
    for _, callback, _ in connection.run_on_commit:
        if isinstance(callback, _PendingWrites) and not callback.flushed:
            return callback
    pending = _PendingWrites()
    transaction.on_commit(pending, robust=True)
    return pending


def _record(
    corpus: Corpus, owner_id: int, upserted: list[int], removed: list[int], generation: int
) -> None:
    """Listener of `retrieval.events`: the change reaches the index on commit."""
    pending = _pending()
    if pending is None:
        pending = _PendingWrites()
        pending.add(corpus, owner_id, [*upserted, *removed], generation)
        pending()
    else:
        store_ahead(corpus, owner_id, upserted)  # vectors computed before the transaction
        pending.add(corpus, owner_id, [*upserted, *removed], generation)


def install() -> None:
    """Called once from RetrievalConfig.ready()."""
    events.listen(_record)
    health.register("embedder", embedder_health)
