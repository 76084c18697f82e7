"""Hybrid search over one corpus: vector + keyword candidates, fused, optionally reranked.

Everything here works on ids and owner-scoped SQL; callers turn the final ids into
model instances with one `for_user` query.
"""

from collections.abc import Callable, Mapping

import numpy as np
from django.conf import settings
from django.db import connection

from retrieval import dates, fusion, keyword, rerank, vocabulary
from retrieval.corpus import Corpus
from retrieval.embedding import current_dim, current_model_id
from retrieval.indexes import index_for
from retrieval.query import query_vector
from retrieval.vector import VectorIndex

CANDIDATES_PER_RESULT = 4  # each stage proposes top_k x 4 (reference: Recall)
OVERFETCH = 2  # vector hits fetched per wanted candidate, so filters rarely starve it
MIN_CANDIDATES = 20
# (weight, k) of the extra stages, read at call time (tests override settings).
EXTRA_STAGES: dict[str, Callable[[], tuple[float, int]]] = {
    "conversation": lambda: (
        settings.GAIA_RRF_CONVERSATION_WEIGHT,
        settings.GAIA_RRF_CONVERSATION_K,
    ),
    "date": lambda: (settings.GAIA_RRF_DATE_WEIGHT, settings.GAIA_RRF_DATE_K),
    "speaker": lambda: (settings.GAIA_RRF_SPEAKER_WEIGHT, settings.GAIA_RRF_K),
}


def _ids_in_scope(corpus: Corpus, where: keyword.Where, ids: list[int] | None) -> list[int]:
    """Which of `ids` (or all rows when None) pass `where` (which scopes the owner)."""
    sql = f"SELECT t.id FROM {corpus.table} t WHERE {corpus.active_sql}{where.sql()}"
    params = list(where.params)
    if ids is not None:
        if not ids:
            return []
        sql += f" AND t.id IN ({', '.join(['%s'] * len(ids))})"
        params += ids
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def _heal(corpus: Corpus, owner_id: int, index: VectorIndex, dropped: list[int]) -> None:
    """Drop index entries whose rows are gone or hidden (a write path that did not announce)."""
    base = keyword.Where().add("t.owner_id = %s", owner_id)
    alive = set(_ids_in_scope(corpus, base, dropped))
    stale = [i for i in dropped if i not in alive]
    if stale:
        index.remove(stale)


def vector_candidates(
    corpus: Corpus, owner_id: int, query: str, where: keyword.Where, limit: int
) -> list[tuple[int, float]]:
    """(id, cosine) best first among the rows `where` allows; [] without an embedder.

    The owner's most common words are left out of the embedded text (`vocabulary`).
    """
    vector = query_vector(vocabulary.vector_text(owner_id, query))
    if vector is None:
        return []
    index = index_for(corpus, owner_id, current_model_id(), current_dim())
    hits = index.search(vector, limit * OVERFETCH)
    if not hits:
        return []
    allowed = set(_ids_in_scope(corpus, where, [i for i, _ in hits]))
    kept = [(i, s) for i, s in hits if i in allowed]
    dropped = len(hits) - len(kept)
    if len(kept) < limit and dropped and index.size > len(kept):
        # Filters (or stale entries) ate the over-fetch: search exactly among allowed rows.
        _heal(corpus, owner_id, index, [i for i, _ in hits if i not in allowed])
        scope = np.array(_ids_in_scope(corpus, where, None), dtype=np.int64)
        kept = index.search(vector, limit, allowed=scope)
    return kept[:limit]


def _direct_weights() -> dict[str, float]:
    return {
        "vector": settings.GAIA_RRF_VECTOR_WEIGHT,
        "keyword": settings.GAIA_RRF_KEYWORD_WEIGHT,
    }


def _direct(
    corpus: Corpus, owner_id: int, query: str, where: keyword.Where, limit: int
) -> dict[str, list[int]]:
    by_keyword = keyword.search(corpus.fts, query, where, limit)
    by_vector = vector_candidates(corpus, owner_id, query, where, limit)
    return {"vector": [i for i, _ in by_vector], "keyword": [i for i, _ in by_keyword]}


def dated_candidates(
    corpus: Corpus, owner_id: int, query: str, where: keyword.Where, limit: int
) -> list[int]:
    """Rows of the days the query names (`dates`), best first; [] if it names none."""
    windows = dates.mentioned_windows(query)
    if not windows:
        return []
    column = corpus.time_column
    within = " OR ".join(f"({column} >= %s AND {column} < %s)" for _ in windows)
    scoped = keyword.Where(list(where.clauses), list(where.params))
    scoped.add(f"({within})", *[moment for window in windows for moment in window])
    return [f.id for f in _fuse(_direct(corpus, owner_id, query, scoped, limit), {}, limit)]


def spoken_by_named(corpus: Corpus, owner_id: int, query: str, ids: list[int]) -> list[int]:
    """Those of `ids` (in order) said by the one speaker the query names; [] if none."""
    if not corpus.speaker_column or not ids:
        return []
    name = vocabulary.named_speaker(owner_id, query)
    if name is None:
        return []
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"SELECT t.id, {corpus.speaker_column} FROM {corpus.table} t "
        f"WHERE t.owner_id = %s AND t.id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [owner_id, *ids])
        theirs = {row[0] for row in cursor.fetchall() if (row[1] or "").strip().casefold() == name}
    return [i for i in ids if i in theirs]


def fused_candidates(
    corpus: Corpus,
    *,
    owner_id: int,
    query: str,
    where: keyword.Where,
    limit: int,
    extra: Mapping[str, list[int]] | None = None,
) -> list[fusion.Fused]:
    """Vector and keyword candidates (at most `limit` each) plus `extra` stages, fused.

    Extra stages only propose (see `fusion.rrf`'s `partial`), with their own k. Two are
    added here: the rows of the days the query names (`dated_candidates`), and, among
    the candidates, those said by the speaker it names, in fused order (`spoken_by_named`).
    """
    rankings = _direct(corpus, owner_id, query, where, limit)
    stages = {**(extra or {}), "date": dated_candidates(corpus, owner_id, query, where, limit)}
    fused = _fuse(rankings, stages, limit)
    spoken = spoken_by_named(corpus, owner_id, query, [f.id for f in fused])
    return _fuse(rankings, {**stages, "speaker": spoken}, limit) if spoken else fused


def _fuse(
    direct: dict[str, list[int]], extra: Mapping[str, list[int]], limit: int
) -> list[fusion.Fused]:
    rankings = dict(direct)
    weights = _direct_weights()
    stage_k = {}
    for stage, ids in extra.items():
        if ids:
            rankings[stage] = ids[:limit]
            weights[stage], stage_k[stage] = EXTRA_STAGES[stage]()
    return fusion.rrf(
        rankings, weights, settings.GAIA_RRF_K, depth=limit, partial=list(stage_k), stage_k=stage_k
    )


def hybrid(
    corpus: Corpus,
    *,
    owner_id: int,
    query: str,
    where: keyword.Where,
    top_k: int,
    documents: Callable[[list[int]], dict[int, str]],
    extra: Mapping[str, list[int]] | None = None,
) -> list[fusion.Fused]:
    """Fused (and, when configured, reranked) ids best first, at most `top_k`.

    `documents(ids)` gives the text of candidates for the reranker; `extra` adds ranked
    stages of the caller's (each id must already be in scope).
    """
    if not query.strip():
        return []
    limit = max(MIN_CANDIDATES, top_k * CANDIDATES_PER_RESULT)
    fused = fused_candidates(
        corpus, owner_id=owner_id, query=query, where=where, limit=limit, extra=extra
    )
    if rerank.configured() and len(fused) > 1:
        fused = _reranked(query, fused, top_k, documents)
    return fused[:top_k]


def _reranked(query: str, fused: list, top_k: int, documents: Callable) -> list:
    head, tail = fused[: top_k * 2], fused[top_k * 2 :]
    texts = documents([f.id for f in head])
    head = [f for f in head if f.id in texts]
    scores = rerank.rerank_scores(query, [texts[f.id] for f in head])
    if scores is None:
        return fused
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    return [fusion.Fused(head[i].id, scores[i], head[i].stages) for i in order] + tail
