"""The process-wide index cache, index builds from the database (or loads of a snapshot,
retrieval/snapshots.py), catch-ups from the change log, and in-place updates."""

import threading

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from retrieval import snapshots
from retrieval.changelog import changed_since
from retrieval.corpus import Corpus
from retrieval.embedding.store import rows_state
from retrieval.generations import generation_bump, generation_read
from retrieval.index_cache import IndexCache, Key
from retrieval.vector import VectorIndex

LOAD_CHUNK = 2048  # rows read per fetch when an index is built
_cache: IndexCache | None = None
_cache_lock = threading.Lock()


def index_cache() -> IndexCache:
    """This process's cache (budget GAIA_INDEX_CACHE_MB)."""
    global _cache
    with _cache_lock:
        if _cache is None:
            _cache = IndexCache(settings.GAIA_INDEX_CACHE_MB * 1024 * 1024)
        return _cache


def load_vectors(
    corpus: Corpus, owner_id: int, model_id: str, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the owner's searchable rows embedded by `model_id`.

    Counted first, then read in chunks straight into one array: the peak is about twice
    the vectors (this array, then the index's copy), not four times (the blobs, their
    join, a converted copy, the index's copy).
    """
    where = (
        f"FROM {corpus.table} t WHERE t.owner_id = %s AND {corpus.active_sql} "
        "AND t.embedding_model = %s AND t.embedding IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) {where}", [owner_id, model_id])
        size = int(cursor.fetchone()[0])
        ids = np.empty(size, dtype=np.int64)
        vectors = np.empty((size, dim), dtype=np.float32)
        count = 0
        cursor.execute(f"SELECT t.id, t.embedding {where}", [owner_id, model_id])
        while rows := cursor.fetchmany(LOAD_CHUNK):
            rows = [(row_id, blob) for row_id, blob in rows if len(blob) == dim * 4]
            end = count + len(rows)
            if end > len(ids):  # rows added since the count
                ids, vectors = np.resize(ids, end), np.resize(vectors, (end, dim))
            ids[count:end] = [row_id for row_id, _ in rows]
            blob = b"".join(bytes(b) for _, b in rows)
            vectors[count:end] = np.frombuffer(blob, dtype="<f4").reshape(-1, dim)
            count = end
    return ids[:count], vectors[:count]


def build_index(corpus: Corpus, owner_id: int, model_id: str, dim: int) -> VectorIndex:
    # The generation is read before the rows: a write landing in between leaves the
    # index labelled older than the database, so the next search rebuilds (never misses).
    generation = generation_read(corpus, owner_id)
    ids, vectors = load_vectors(corpus, owner_id, model_id, dim)
    return VectorIndex(dim, ids, vectors, generation)


def cold_index(
    corpus: Corpus, owner_id: int, model_id: str, dim: int, generation: int
) -> VectorIndex:
    """An index this process does not hold: the owner's snapshot caught up to
    `generation`, else one built from the database (and written as the new snapshot)."""
    index = snapshots.snapshot_load(corpus.name, owner_id, model_id, dim, generation)
    if index is not None:
        since = index.generation
        if since >= generation or catch_up(corpus, owner_id, model_id, dim, index, generation):
            if generation - since >= snapshots.REWRITE_AFTER:
                snapshots.snapshot_save_later(corpus.name, owner_id, model_id, index)
            return index
    index = build_index(corpus, owner_id, model_id, dim)
    snapshots.snapshot_save_later(corpus.name, owner_id, model_id, index)
    return index


def catch_up(
    corpus: Corpus, owner_id: int, model_id: str, dim: int, index: VectorIndex, generation: int
) -> bool:
    """Bring `index` to `generation` by re-reading the rows changed since its own; False
    when the change log cannot say which (the caller rebuilds)."""
    since = index.generation
    ids = changed_since(corpus.name, owner_id, since, generation)
    if ids is None:
        return False
    vectors, hidden, unembedded = rows_state(corpus, owner_id, ids, model_id, dim)
    return index.advance(
        from_generation=since,
        to_generation=generation,
        upserts=vectors,
        removals=hidden + unembedded,  # a changed text's old vector must not answer
    )


def index_for(
    corpus: Corpus,
    owner_id: int,
    model_id: str,
    dim: int,
    *,
    cache: IndexCache | None = None,
    generation: int | None = None,
) -> VectorIndex:
    """The owner's index, current with the database generation (`generation` when the
    caller has just read it, see `corpus.snapshot`)."""
    cache = cache or index_cache()
    key: Key = (corpus.name, owner_id, model_id)
    if generation is None:
        generation = generation_read(corpus, owner_id)
    return cache.get(
        key,
        generation,
        lambda: cold_index(corpus, owner_id, model_id, dim, generation),
        lambda index, at: catch_up(corpus, owner_id, model_id, dim, index, at),
    )


def index_stats() -> dict[str, int]:
    """How this process's indexes were kept current (see `IndexCache.counts`), and its size."""
    cache = index_cache()
    counts = {what: cache.counts[what] for what in ("builds", "rebuilds", "catch_ups", "in_place")}
    loads = {f"snapshots_{what}": snapshots.counts[what] for what in ("loaded", "caught_up")}
    return {**counts, **loads, "indexes": len(cache), "bytes": cache.nbytes}


def index_apply(
    corpus: Corpus,
    owner_id: int,
    model_id: str,
    *,
    from_generation: int,
    to_generation: int,
    upserts: dict[int, np.ndarray],
    removals: list[int],
) -> bool:
    """A committed change made in this process, applied to this process's index in place."""
    return index_cache().apply(
        (corpus.name, owner_id, model_id),
        from_generation=from_generation,
        to_generation=to_generation,
        upserts=upserts,
        removals=removals,
    )


def index_rebuild(corpus: Corpus, owner_id: int, model_id: str, dim: int) -> VectorIndex:
    """Invalidate the owner's index in every process and build a fresh one here."""
    with transaction.atomic():
        generation_bump(corpus, owner_id)
    return index_for(corpus, owner_id, model_id, dim)
