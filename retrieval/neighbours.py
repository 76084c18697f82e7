"""The owner's rows nearest to vectors a write has just computed (near-duplicates).

A write embeds its text anyway (`retrieval.embedding.ahead`); its vector against the
owner's vector index finds the rows that may say the same thing, in a fraction of a
millisecond at 10k rows, where a full-text query per written row cost 1.5-4 ms. The
index answers for the rows it holds: rows with a vector of `model_id`, current with the
owner's generation (`retrieval.indexes.index_for`). Which of them repeats the text is the
caller's to judge (memory/dedup.py reads their words).
"""

from collections.abc import Sequence

import numpy as np
from django.db import connection

from retrieval.corpus import Corpus
from retrieval.filters import Filters, scoped
from retrieval.indexes import index_for


def nearest_ids(
    corpus: Corpus,
    owner_id: int,
    vectors: Sequence[np.ndarray],
    *,
    model_id: str,
    k: int,
    filters: Sequence[Filters] = (),
) -> list[list[int]]:
    """For each of `vectors`: the owner's searchable rows among its `k` nearest (by cosine,
    nearest first) that pass that vector's `filters` (one set per vector; none: no filter)."""
    if not len(vectors):
        return []
    dim = len(vectors[0])
    index = index_for(corpus, owner_id, model_id, dim)
    found = [[row_id for row_id, _ in index.search(vector, k)] for vector in vectors]
    every = sorted({row_id for ids in found for row_id in ids})
    if not every:
        return [[] for _ in vectors]
    groups: dict[tuple, list[int]] = {}  # one statement per distinct filter set
    for n, wanted in enumerate(filters or [()] * len(vectors)):
        groups.setdefault(tuple(wanted), []).append(n)
    out: list[list[int]] = [[] for _ in vectors]
    for members in groups.values():
        allowed = _passing(corpus, owner_id, filters[members[0]] if filters else (), every)
        for n in members:
            out[n] = [row_id for row_id in found[n] if row_id in allowed]
    return out


def _passing(corpus: Corpus, owner_id: int, filters: Filters, ids: list[int]) -> set[int]:
    """Which of the owner's `ids` are searchable and pass `filters`."""
    where = scoped(corpus, owner_id, filters)
    sql = (
        f"SELECT t.id FROM {corpus.table} t WHERE {corpus.active_sql}{where.sql()} "
        f"AND t.id IN ({', '.join(['%s'] * len(ids))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*where.params, *ids])
        return {row[0] for row in cursor.fetchall()}
