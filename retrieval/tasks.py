"""django-q2 tasks for embeddings and token vectors: thin, idempotent wrappers over the
services."""

from django_q.tasks import async_task

from core.erasing import held_during_erase
from retrieval.corpus import named
from retrieval.embedding.services import embed_pending, embeddings_backfill, embeddings_missing
from retrieval.late_writes import tokens_backfill, tokens_missing


@held_during_erase(lambda corpus_name, owner_id, *_, **__: owner_id)
def embed_rows_task(corpus_name: str, owner_id: int, ids: list[int]) -> int:
    """Embed rows a write could not embed itself (remote or failing embedder)."""
    return embed_pending(named(corpus_name), owner_id, list(ids))


def backfill_embeddings(limit: int = 500) -> int:
    """Embed up to `limit` rows lacking a vector of the current model, then store token
    vectors for up to `limit` rows lacking them; returns how many rows got either."""
    return embeddings_backfill(limit=limit) + tokens_backfill(limit=limit)


def backfill_until_done(limit: int = 500) -> int:
    """One bounded batch of each, then queue the next while work remains (start-up
    backfill, and a changed model: every row moves over in the background)."""
    done = embeddings_backfill(limit=limit) + tokens_backfill(limit=limit)
    left = any(embeddings_missing().values()) or any(tokens_missing().values())
    if done and left:
        async_task(backfill_until_done, limit, group="embeddings")
    return done
