"""Embedding services: embed rows and store their vectors, keep indexes in step, backfill.

Write paths (see `retrieval.embedding.hooks`), tasks and commands all come through here.
Each stored vector bumps the owner's generation, so other processes pick it up.
"""

import logging
import time
from collections import defaultdict
from functools import partial
from typing import Any

from django.db import transaction

from retrieval.corpus import Corpus, declared
from retrieval.documents import texts_for
from retrieval.embedding import EmbedderError, current_dim, current_model_id, get_embedder, store
from retrieval.embedding.base import Embedder
from retrieval.generations import generation_bump, generation_read
from retrieval.indexes import index_apply

log = logging.getLogger(__name__)
BACKFILL_CHUNK = 64  # rows embedded and stored per transaction
BACKFILL_SECONDS = 60.0  # one backfill call stays well inside a task timeout


def embed_rows(
    corpus: Corpus, owner_id: int, ids: list[int], *, embedder: Embedder | None = None
) -> int:
    """Embed the owner's rows `ids` in one batch and store the vectors; returns how many.

    Raises EmbedderError when the embedder fails (nothing is stored then).
    """
    embedder = embedder or get_embedder()
    docs = texts_for(corpus, owner_id, ids)
    if not docs:
        return 0
    order = list(docs)
    vectors = embedder.embed([docs[i][0] for i in order])
    with transaction.atomic():
        saved = store.save_vectors(
            corpus,
            owner_id,
            embedder.model_id,
            [(i, docs[i][1], vector) for i, vector in zip(order, vectors, strict=True)],
        )
        if not saved:
            return 0
        generation = generation_bump(corpus, owner_id, saved)
        shown = store.searchable(corpus, owner_id, saved)
        by_id = dict(zip(order, vectors, strict=True))
        transaction.on_commit(
            partial(
                index_apply,
                corpus,
                owner_id,
                embedder.model_id,
                from_generation=generation - 1,
                to_generation=generation,
                upserts={i: by_id[i] for i in saved if i in shown},
                removals=[],
            ),
            robust=True,
        )
    return len(saved)


def embed_pending(corpus: Corpus, owner_id: int, ids: list[int]) -> int:
    """Embed those of `ids` that are still searchable and still lack a current vector."""
    _, _, unembedded = store.rows_state(corpus, owner_id, ids, current_model_id(), current_dim())
    return embed_rows(corpus, owner_id, unembedded) if unembedded else 0


def enqueue_embedding(corpus: Corpus, owner_id: int, ids: list[int]) -> None:
    """Leave `ids` to a worker; if even queueing fails, the backfill picks them up later."""
    from django_q.tasks import async_task

    try:
        async_task(
            "retrieval.tasks.embed_rows_task",
            corpus.name,
            owner_id,
            sorted(ids),
            group="embeddings",
        )
    except Exception as error:  # broker down: the periodic backfill is the safety net
        log.warning("could not queue embedding of %d %s: %s", len(ids), corpus.name, error)


def sync_committed(
    corpus: Corpus, owner_id: int, ids: list[int], from_generation: int, to_generation: int
) -> None:
    """After a committed write: update this process's index, then embed what lacks a vector.

    Embeds in the caller's thread when the embedder is local; otherwise (or when it
    fails) the rows are saved already and a task embeds them; keyword search finds them
    meanwhile.
    """
    model_id = current_model_id()
    vectors, hidden, unembedded = store.rows_state(corpus, owner_id, ids, model_id, current_dim())
    # Only a generation the database confirms is claimed (a savepoint rollback can undo
    # a bump); anything else leaves the index behind, and the next search rebuilds it.
    if generation_read(corpus, owner_id) == to_generation:
        index_apply(
            corpus,
            owner_id,
            model_id,
            from_generation=from_generation,
            to_generation=to_generation,
            upserts=vectors,
            removals=hidden + unembedded,  # a changed text's old vector must not answer
        )
    if not unembedded:
        return
    try:
        embedder = get_embedder()
        if embedder.is_local:
            embed_rows(corpus, owner_id, unembedded, embedder=embedder)
            return
    except EmbedderError as error:
        log.warning("embedding deferred to a task: %s", error)
    enqueue_embedding(corpus, owner_id, unembedded)


def embeddings_missing(*, user: Any = None) -> dict[str, int]:
    """Searchable rows lacking a vector of the current model, per corpus."""
    owner_id = user.pk if user is not None else None
    model_id = current_model_id()
    return {
        corpus.name: store.unembedded_count(corpus, model_id, owner_id=owner_id)
        for corpus in declared()
    }


def embeddings_backfill(
    *, limit: int = 500, user: Any = None, seconds: float = BACKFILL_SECONDS
) -> int:
    """Embed up to `limit` rows lacking a current vector (items before turns).

    Stops early after `seconds`; returns how many were stored. Raises EmbedderError
    when the embedder is unusable, so a scheduled run is recorded as failed.
    """
    embedder = get_embedder()
    deadline = time.monotonic() + seconds
    owner_id = user.pk if user is not None else None
    done = 0
    for corpus in declared():
        rows = store.unembedded(corpus, embedder.model_id, owner_id=owner_id, limit=limit - done)
        by_owner: dict[int, list[int]] = defaultdict(list)
        for row_owner, row_id in rows:
            by_owner[row_owner].append(row_id)
        for row_owner, ids in by_owner.items():
            for start in range(0, len(ids), BACKFILL_CHUNK):
                done += embed_rows(
                    corpus, row_owner, ids[start : start + BACKFILL_CHUNK], embedder=embedder
                )
                if time.monotonic() > deadline:
                    return done
        if done >= limit:
            break
    return done
