"""The "embedder" health check: is the configured embedder usable, and which model is it."""

import time
from typing import Any

from django.conf import settings

from retrieval.embedding import EmbedderError, current_dim, current_model_id, get_embedder, local

PROBE_SECONDS = 60.0  # a remote server is asked at most once a minute
_probe: dict[tuple[str, str], Any] = {}


def embedder_health() -> dict[str, Any]:
    backend = (settings.GAIA_EMBEDDER or "local").strip().lower()
    report: dict[str, Any] = {"backend": backend}
    try:
        report.update(model=current_model_id(), dim=current_dim())
        if backend == "local":
            verify_local_files()
            report["ok"] = True
        else:
            report.update(_remote_probe())
    except EmbedderError as error:
        report.update(ok=False, error=str(error))
    return report


def verify_local_files() -> None:
    """sha256 of the model and tokenizer (cached per file version); EmbedderError if bad."""
    local.verified_files(
        local.model_named(settings.GAIA_LOCAL_EMBED_MODEL),
        settings.GAIA_EMBED_MODEL_PATH or None,
        settings.GAIA_EMBED_TOKENIZER_PATH or None,
    )


def _remote_probe() -> dict[str, Any]:
    key = (current_model_id(), settings.GAIA_EMBED_URL)
    cached = _probe.get(key)
    if cached and time.monotonic() - cached[0] < PROBE_SECONDS:
        return cached[1]
    try:
        get_embedder().embed(["health check"])
        result: dict[str, Any] = {"ok": True}
    except EmbedderError as error:
        result = {"ok": False, "error": str(error)[:300]}
    _probe[key] = (time.monotonic(), result)
    return result
