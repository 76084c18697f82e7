"""The late-interaction stage: MaxSim of a question against stored token vectors.

`scores(corpus, owner_id, query, ids)` encodes the question once (cached per process) and
scores each of the owner's rows among `ids` that has token vectors of the current model
(`retrieval.tokens`), reading them with owner-scoped SQL. A row without them (not yet
encoded, another model's, or another owner's) is left out of the answer: the caller
ranks it by what else it knows. The scores order candidates of one question (higher is
better; 0..1, each question token's best cosine averaged); they are compressed and carry
no relevance floor: a text about something else can still score high.

Cost: one question encoding (a few ms, none when cached) and about 0.5 ms of MaxSim for 30
rows; writes pay for the vectors in the background (`retrieval.late_writes`).
"""

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from django.db import connection

from retrieval import tokens
from retrieval.corpus import Corpus
from retrieval.late_writes import enabled
from retrieval.tokens import TokensError

__all__ = ["TokensError", "enabled", "query_tokens", "query_tokens_soon", "scores", "stored"]
CHUNK = 500  # ids per IN (...) list
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_lock = threading.Lock()


def query_tokens(query: str) -> np.ndarray:
    """The question's token vectors (tokens x DIM, unit rows); TokensError if the model
    cannot run. Cached: asking again costs nothing."""
    return tokens.encoder().encode_query(query)


def query_tokens_soon(query: str) -> Future:
    """Start encoding the question on this process's query thread; the future's result
    is `query_tokens(query)` (or raises its TokensError). A recall can start it first and
    take it after its own first stage: on two cores the encoding then costs no wall time
    beside the question's embedding, only its CPU time."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():  # threads do not survive fork
            _pool, _pool_pid = ThreadPoolExecutor(1, thread_name_prefix="late-query"), os.getpid()
        return _pool.submit(query_tokens, query)


def stored(corpus: Corpus, owner_id: int, ids: Sequence[int]) -> dict[int, np.ndarray]:
    """{id: token vectors} of the owner's rows among `ids` holding current-model vectors."""
    out: dict[int, np.ndarray] = {}
    ordered = sorted({int(i) for i in ids})
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        sql = (
            f"SELECT t.id, t.tokens FROM {corpus.table} t WHERE t.owner_id = %s "
            f"AND t.tokens_model = %s AND t.id IN ({', '.join(['%s'] * len(chunk))})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [owner_id, tokens.MODEL_ID, *chunk])
            for row_id, blob in cursor.fetchall():
                vectors = tokens.unpack(blob)
                if vectors is not None:
                    out[row_id] = vectors
    return out


def scores(
    corpus: Corpus,
    owner_id: int,
    query: str,
    ids: Sequence[int],
    *,
    query_vectors: np.ndarray | Sequence[np.ndarray] | None = None,
) -> dict[int, float]:
    """{id: MaxSim score} for the owner's rows among `ids` that have token vectors.

    `query_vectors` (from `query_tokens`) spares a second lookup when one question scores
    several corpora; several (one per wording of the question) give each row its best
    score over them. Empty when late interaction is off (GAIA_LATE=off) or `ids` is;
    TokensError when the model cannot run.
    """
    if not ids or not enabled():
        return {}
    found = stored(corpus, owner_id, ids)
    if not found:
        return {}
    if query_vectors is None:
        questions = [query_tokens(query)]
    elif isinstance(query_vectors, np.ndarray):
        questions = [query_vectors]
    else:
        questions = list(query_vectors)
    order = list(found)
    documents = [found[i] for i in order]
    starts = np.cumsum([0, *(len(d) for d in documents[:-1])])
    rows = np.concatenate(documents).T
    best = None
    for question in questions:
        similarity = question @ rows  # query tokens x all row tokens
        score = np.maximum.reduceat(similarity, starts, axis=1).mean(axis=0)  # per row
        best = score if best is None else np.maximum(best, score)
    return dict(zip(order, best.astype(float).tolist(), strict=True))
