"""Start-up: refuse to serve with a broken local model; queue the embedding backfill;
load the local model before the web server forks its workers."""

from django.conf import settings
from django_q.tasks import async_task

from retrieval.embedding import EmbedderError, get_embedder
from retrieval.embedding.health import verify_local_files
from retrieval.embedding.services import embeddings_missing


def embedding_startup() -> str:
    """A one-line status; raises EmbedderError (naming the fix) when the model is unusable."""
    if (settings.GAIA_EMBEDDER or "local").strip().lower() == "local":
        verify_local_files()
    missing = embeddings_missing()
    if not any(missing.values()):
        return "Embeddings: all items and turns have a vector of the current model."
    async_task("retrieval.tasks.backfill_until_done", 500, group="embeddings")
    return (
        f"Embeddings: {missing['items']} items and {missing['turns']} turns lack a vector of "
        "the current model; the worker embeds them in bounded batches."
    )


def embedder_preload() -> None:
    """Load the local model now, in the process gunicorn forks its workers from
    (`--preload`): they then share its ~190 MB of weights instead of loading a copy each.
    Nothing happens with a remote embedder; a broken model fails later, per request."""
    if (settings.GAIA_EMBEDDER or "local").strip().lower() != "local":
        return
    try:
        get_embedder().embed(["warm up"])  # one text: no worker thread is started here
    except EmbedderError:
        pass  # `serve` refused to start on it already; a bare gunicorn reports it per request
