"""Vectors computed before a write's transaction, stored inside it: one lock per write.

A single write used to take the database's write lock twice: once for the row, and once
more after commit to store the vector the model had computed meanwhile. On SQLite (one
write lock for the whole database) every writer then queued twice behind whatever held
it. A service that knows the text it is about to store embeds it first, outside any
lock:

    with embedded_ahead([item_text(content=...)]):
        with transaction.atomic():
            ...  # the write; its announcement (`retrieval.events`) stores the vectors

When the write's announcement reaches `retrieval.embedding.hooks` inside the transaction,
`store_ahead` saves the vectors whose text matches the stored row exactly; the commit
then finds them and only updates this process's index. A text that changed on the way
(the turn a concurrent write put before this one, a fold into an existing item) simply
has no vector ahead, and is embedded after commit as before. Only a local embedder is
used ahead: a remote one could hold the caller for seconds, and the after-commit path
already queues that work.

A batch of rows, whose SQL (dedup lookups, inserts, full-text) takes about as long as
embedding them, calls `embed_soon` instead: the model runs in the background while the
transaction does its SQL, and the after-commit embedding takes the vectors from that run
(`LocalEmbedder.prefetch`), so the lock is held no longer than before.
"""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from retrieval.corpus import Corpus
from retrieval.documents import texts_for
from retrieval.embedding import EmbedderError, get_embedder, store
from retrieval.embedding.local import LocalEmbedder

log = logging.getLogger(__name__)
_local = threading.local()


def _embedded(texts: list[str]) -> tuple[str, dict[str, np.ndarray]] | None:
    try:
        embedder = get_embedder()
        if not embedder.is_local:
            return None
        unique = list(dict.fromkeys(texts))
        vectors = embedder.embed(unique)
    except EmbedderError as error:  # the after-commit path embeds (or queues) them
        log.debug("no vectors ahead of the write: %s", error)
        return None
    return embedder.model_id, dict(zip(unique, vectors, strict=True))


@contextmanager
def embedded_ahead(texts: list[str]) -> Iterator[None]:
    """Embed `texts` now; writes inside the block store their vectors with their rows."""
    outer = getattr(_local, "ahead", None)
    ahead = _embedded([t for t in texts if t]) if texts else None
    _local.ahead = ahead
    try:
        yield
    finally:
        _local.ahead = outer


def embed_soon(texts: list[str]) -> None:
    """Start embedding `texts` in the background (local embedder only); embedding them
    later, after the write commits, takes these vectors. Texts this thread embedded
    ahead of its write (`embedded_ahead`) are not run again."""
    try:
        embedder = get_embedder()
    except EmbedderError as error:  # the after-commit path embeds (or queues) them
        log.debug("nothing embedded ahead of the write: %s", error)
        return
    ahead = getattr(_local, "ahead", None)
    if ahead and ahead[0] == embedder.model_id:  # embedded already (`embedded_ahead`)
        texts = [t for t in texts if t not in ahead[1]]
    if isinstance(embedder, LocalEmbedder) and texts:
        embedder.prefetch(texts)


def ahead_vectors(texts: list[str]) -> tuple[str, list[np.ndarray | None]] | None:
    """(model id, the vector of each of `texts` or None) from what this thread embedded
    ahead of its write (`embedded_ahead`); None when it embedded nothing ahead."""
    ahead = getattr(_local, "ahead", None)
    if not ahead:
        return None
    model_id, vectors = ahead
    return model_id, [vectors.get(text) for text in texts]


def store_ahead(corpus: Corpus, owner_id: int, ids: list[int]) -> None:
    """Inside a write's transaction: save the vectors computed ahead for rows among `ids`."""
    ahead = getattr(_local, "ahead", None)
    if not ahead or not ids:
        return
    model_id, vectors = ahead
    entries = [
        (row_id, guard, vectors[text])
        for row_id, (text, guard) in texts_for(corpus, owner_id, ids).items()
        if text in vectors
    ]
    if entries:
        store.save_vectors(corpus, owner_id, model_id, entries)
