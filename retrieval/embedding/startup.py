"""Start-up: refuse to serve with a broken local model (the embedder, the relevance
judge); queue the embedding backfill; load the local models before the web server forks
its workers."""

from django.conf import settings
from django_q.tasks import async_task

from retrieval import judge, late_writes, tokens
from retrieval.crossencoder import MODEL_NAME, JudgeError, verify_files
from retrieval.embedding import EmbedderError, current_model_id, get_embedder
from retrieval.embedding.health import verify_local_files
from retrieval.embedding.services import embeddings_missing


def embedding_startup() -> str:
    """A status (one line each for the embedder, the judge and late interaction); raises
    EmbedderError (naming the fix) when a local model is unusable."""
    if (settings.GAIA_EMBEDDER or "local").strip().lower() == "local":
        verify_local_files()
    others = f"{_judge_status()}\n{_late_status()}"
    missing = embeddings_missing()
    encode = late_writes.tokens_missing() if late_writes.enabled() else {}
    if any(missing.values()) or any(encode.values()):
        async_task("retrieval.tasks.backfill_until_done", 500, group="embeddings")
    if encode and any(encode.values()):
        others += (
            f" {encode['items']} items and {encode['turns']} turns lack token vectors of it; "
            "the worker stores them in bounded batches."
        )
    if not any(missing.values()):
        return f"Embeddings ({current_model_id()}): every item and turn has a vector.\n{others}"
    return (
        f"Embeddings ({current_model_id()}): {missing['items']} items and {missing['turns']} "
        "turns lack a vector of this model; the worker embeds them in bounded batches "
        "(recall answers meanwhile; progress: manage.py memory_backfill --dry-run).\n"
        f"{others}"
    )


def _late_status() -> str:
    if not late_writes.enabled():
        return "Late interaction: off (GAIA_LATE=off)."
    try:
        tokens.verify_files()
    except tokens.TokensError as error:
        raise EmbedderError(f"{error} (or set GAIA_LATE=off to serve without it)") from error
    return f"Late interaction: {tokens.MODEL_ID} (local, token vectors stored with each row)."


def _judge_status() -> str:
    mode = judge.mode()
    if mode == "off":
        return "Relevance judge: off (GAIA_JUDGE=off): hits keep the fused order."
    if mode == "remote":
        return f"Relevance judge: the rerank server at {settings.GAIA_RERANK_URL}."
    try:
        verify_files()
    except JudgeError as error:
        raise EmbedderError(f"{error} (or set GAIA_JUDGE=off to serve without it)") from error
    return (
        f"Relevance judge: {MODEL_NAME} (local, at most {settings.GAIA_JUDGE_CANDIDATES} "
        "candidates a search)."
    )


def embedder_preload() -> None:
    """Load the local models now, in the process gunicorn forks its workers from
    (`--preload`): they then share their weights (~190 MB for the embedder, about 90 MB
    for the late-interaction encoder) instead of loading a copy each.
    Nothing happens with a remote embedder; a broken model fails later, per request."""
    if judge.mode() == "local":
        try:
            judge.local_judge().logits("warm up", ["warm up"])
        except JudgeError:
            pass  # `serve` refused to start on it; recall falls back to the fused order
    if late_writes.enabled():
        try:
            tokens.encoder().encode(["warm up"])
        except tokens.TokensError:
            pass  # `serve` refused to start on it; token vectors wait for the backfill
    if (settings.GAIA_EMBEDDER or "local").strip().lower() != "local":
        return
    try:
        get_embedder().embed(["warm up"])  # one text: no worker thread is started here
    except EmbedderError:
        pass  # `serve` refused to start on it already; a bare gunicorn reports it per request
