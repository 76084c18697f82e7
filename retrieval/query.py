"""The query side of recall: one embedding per distinct query text, cached briefly."""

import logging
import threading
from collections import OrderedDict

import numpy as np

from retrieval.embedding import EmbedderError, get_embedder

log = logging.getLogger(__name__)
CACHE_SIZE = 256
_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()


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
            _cache.move_to_end(key)
            return vector
    try:
        vector = embedder.embed([text])[0]
    except EmbedderError as error:
        log.warning("recall without vectors: %s", error)
        return None
    with _lock:
        _cache[key] = vector
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return vector


def clear_cache() -> None:
    with _lock:
        _cache.clear()
