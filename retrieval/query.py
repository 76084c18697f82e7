"""The query side of recall: one embedding per distinct query text, cached briefly.

`prefetch` starts a query's embedding on a background thread, so the caller's SQL (the
keyword stage, the scope checks) runs while the model does: both release the GIL, and
recall then waits only for whichever takes longer. `query_vector` takes the result from
the cache, from a prefetch under way, or embeds at once.
"""

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from core.lru import Lru
from core.server import metrics
from retrieval.embedding import EmbedderError, get_embedder

log = logging.getLogger(__name__)
CACHE_SIZE = 256
MAX_PENDING = 64
_cache: Lru[tuple[str, str], np.ndarray] = Lru(CACHE_SIZE)
_pending: dict[tuple[str, str], Future] = {}
_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def _executor() -> ThreadPoolExecutor:
    """This process's pool, as wide as a web worker's request threads (threads do not survive
    a fork: a forked worker starts its own)."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(4, thread_name_prefix="query-embed"))
    return _pool[1]


def _remember(key: tuple[str, str], vector: np.ndarray) -> None:
    _cache.put(key, vector)


def _embed(embedder, key: tuple[str, str]) -> np.ndarray:
    try:
        vector = embedder.embed_queries([key[1]])[0]
    finally:
        with _lock:
            _pending.pop(key, None)
    _remember(key, vector)
    return vector


def prefetch(text: str) -> bool:
    """Start embedding `text` in the background (nothing when cached or under way).

    Returns whether there is an embedder to wait for (False: recall is keyword-only)."""
    try:
        embedder = get_embedder()
    except EmbedderError:
        return False
    key = (embedder.model_id, text)
    with _lock:
        if key in _cache or key in _pending or len(_pending) >= MAX_PENDING:
            return True
        _pending[key] = _executor().submit(_embed, embedder, key)
    return True


@metrics.timed("embed")  # waits for the query's vector
def query_vector(text: str) -> np.ndarray | None:
    """The query's embedding, or None when the embedder is unavailable (keyword-only)."""
    try:
        embedder = get_embedder()
    except EmbedderError as error:
        log.warning("recall without vectors: %s", error)
        return None
    key = (embedder.model_id, text)
    with _lock:
        vector = _cache.get(key)
        if vector is not None:
            return vector
        future = _pending.get(key)
    try:
        return future.result() if future is not None else _embed(embedder, key)
    except EmbedderError as error:
        log.warning("recall without vectors: %s", error)
        return None


def clear_cache() -> None:
    _cache.clear()
