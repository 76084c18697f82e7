"""Embeddings: the `Embedder` interface and the implementation the settings choose.

`get_embedder()` returns one shared instance per process and configuration (the local
model is loaded once). `current_model_id()` names the vector space without loading
anything: stored vectors of any other model id are ignored and re-embedded by backfill.
"""

import threading

from django.conf import settings

from core.server import metrics
from retrieval.embedding import local
from retrieval.embedding.base import Embedder, EmbedderError, checked, from_bytes, to_bytes
from retrieval.embedding.openai import OpenAIEmbedder

__all__ = [
    "Embedder",
    "EmbedderError",
    "checked",
    "current_dim",
    "current_model_id",
    "from_bytes",
    "get_embedder",
    "similarity_scale",
    "to_bytes",
]

_instances: dict[tuple, Embedder] = {}
_lock = threading.Lock()


def _config() -> tuple:
    kind = (settings.GAIA_EMBEDDER or "local").strip().lower()
    if kind == "local":
        return (
            "local",
            local.model_named(settings.GAIA_LOCAL_EMBED_MODEL).name,
            settings.GAIA_EMBED_MODEL_PATH,
            settings.GAIA_EMBED_TOKENIZER_PATH,
            settings.GAIA_EMBED_BATCH,
            settings.GAIA_EMBED_THREADS,
        )
    if kind == "openai":
        return (
            "openai",
            settings.GAIA_EMBED_URL,
            settings.GAIA_EMBED_MODEL,
            settings.GAIA_EMBED_DIM,
            settings.GAIA_EMBED_API_KEY,
            settings.GAIA_EMBED_TIMEOUT,
            settings.GAIA_EMBED_BATCH,
        )
    raise EmbedderError(f"GAIA_EMBEDDER={kind!r} is not known. Fix: use 'local' or 'openai'.")


def _build(config: tuple) -> Embedder:
    if config[0] == "local":
        _, name, model_path, tokenizer_path, batch, threads = config
        return local.LocalEmbedder(
            local.MODELS[name],
            model_path=model_path or None,
            tokenizer_path=tokenizer_path or None,
            batch_size=batch,
            threads=threads or local.default_threads(),
        )
    _, url, model, dim, key, timeout, batch = config
    return OpenAIEmbedder(
        base_url=url, model=model, dim=dim, api_key=key, timeout=timeout, batch_size=batch
    )


def get_embedder() -> Embedder:
    """The process-wide embedder for the current settings; EmbedderError if unusable."""
    config = _config()
    instance = _instances.get(config)
    if instance is None:
        with _lock:
            instance = _instances.get(config)
            if instance is None:
                try:
                    instance = _instances[config] = _build(config)
                except EmbedderError:
                    metrics.model_load_error("embedder")
                    raise
    return instance


def current_model_id() -> str:
    """The model id vectors are stored under, from settings alone (nothing is loaded)."""
    config = _config()
    if config[0] == "local":
        return local.MODELS[config[1]].model_id
    return f"openai:{config[2]}:{config[3]}"


def similarity_scale() -> tuple[float, float]:
    """The cosines at which the current model's similarity means nothing and certain."""
    config = _config()
    if config[0] == "local":
        return local.MODELS[config[1]].similarity_scale
    return (settings.GAIA_EMBED_SIMILARITY_NONE, settings.GAIA_EMBED_SIMILARITY_FULL)


def current_dim() -> int:
    config = _config()
    if config[0] == "local":
        return local.MODELS[config[1]].dim
    return settings.GAIA_EMBED_DIM
