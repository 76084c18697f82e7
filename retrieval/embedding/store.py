"""Reading and writing stored vectors with owner-scoped SQL (hot paths skip the ORM)."""

from collections.abc import Iterator

import numpy as np
from django.db import connection

from retrieval.corpus import Corpus
from retrieval.embedding.base import from_bytes, to_bytes

CHUNK = 500  # ids per IN (...) list


def _chunks(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def rows_state(
    corpus: Corpus, owner_id: int, ids: list[int], model_id: str, dim: int
) -> tuple[dict[int, np.ndarray], list[int], list[int]]:
    """For the owner's `ids`: (vectors of searchable rows embedded by `model_id`,
    ids search must not return (gone, forgotten, superseded), searchable ids lacking a vector).
    """
    vectors: dict[int, np.ndarray] = {}
    hidden: list[int] = []
    unembedded: list[int] = []
    seen: set[int] = set()
    for chunk in _chunks(sorted(set(ids))):
        sql = (
            f"SELECT t.id, CASE WHEN {corpus.active_sql} THEN 1 ELSE 0 END, "
            f"t.embedding_model, t.embedding FROM {corpus.table} t "
            f"WHERE t.owner_id = %s AND t.id IN ({', '.join(['%s'] * len(chunk))})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [owner_id, *chunk])
            rows = cursor.fetchall()
        for row_id, active, row_model, blob in rows:
            seen.add(row_id)
            vector = from_bytes(blob, dim) if row_model == model_id and blob else None
            if not active:
                hidden.append(row_id)
            elif vector is None:
                unembedded.append(row_id)
            else:
                vectors[row_id] = vector
    hidden += [i for i in set(ids) if i not in seen]
    return vectors, hidden, unembedded


def save_vectors(
    corpus: Corpus,
    owner_id: int,
    model_id: str,
    entries: list[tuple[int, tuple[str, ...], np.ndarray]],
) -> list[int]:
    """Store (id, the values of `corpus.embedded_columns` it was computed from, vector);
    returns the ids stored.

    A row whose text changed since it was read (an edit, or an erase that cleared the
    copy of an earlier turn a turn is embedded with) keeps no stale vector: the write that
    changed it cleared the embedding and will embed the new text.
    """
    saved: list[int] = []
    guard = " AND ".join(f"{column} = %s" for column in corpus.embedded_columns)
    sql = (
        f"UPDATE {corpus.table} SET embedding = %s, embedding_model = %s "
        f"WHERE id = %s AND owner_id = %s AND {guard}"
    )
    with connection.cursor() as cursor:
        for row_id, values, vector in entries:
            cursor.execute(sql, [to_bytes(vector), model_id, row_id, owner_id, *values])
            if cursor.rowcount:
                saved.append(row_id)
    return saved


def searchable(corpus: Corpus, owner_id: int, ids: list[int]) -> set[int]:
    out: set[int] = set()
    for chunk in _chunks(ids):
        sql = (
            f"SELECT t.id FROM {corpus.table} t WHERE t.owner_id = %s AND {corpus.active_sql} "
            f"AND t.id IN ({', '.join(['%s'] * len(chunk))})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [owner_id, *chunk])
            out.update(row[0] for row in cursor.fetchall())
    return out


def _unembedded_where(corpus: Corpus, model_id: str, owner_id: int | None) -> tuple[str, list]:
    """Searchable rows of `corpus` (of `owner_id`, if given) with no vector of `model_id`."""
    where = f"{corpus.active_sql} AND (t.embedding IS NULL OR t.embedding_model <> %s)"
    params: list = [model_id]
    if owner_id is not None:
        where += " AND t.owner_id = %s"
        params.append(owner_id)
    return where, params


def unembedded(
    corpus: Corpus, model_id: str, *, owner_id: int | None = None, limit: int | None = None
) -> list[tuple[int, int]]:
    """(owner id, row id) of searchable rows with no vector of `model_id`, oldest first."""
    where, params = _unembedded_where(corpus, model_id, owner_id)
    sql = f"SELECT t.owner_id, t.id FROM {corpus.table} t WHERE {where} ORDER BY t.id"
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[0], row[1]) for row in cursor.fetchall()]


def unembedded_count(corpus: Corpus, model_id: str, *, owner_id: int | None = None) -> int:
    where, params = _unembedded_where(corpus, model_id, owner_id)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {corpus.table} t WHERE {where}", params)
        return int(cursor.fetchone()[0])
