"""Start-up: refuse to serve with a broken local model; queue the embedding backfill."""

from django.conf import settings
from django_q.tasks import async_task

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
