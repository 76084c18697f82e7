"""Old dotted paths of tasks that moved to `retrieval.tasks` (kept for one release)."""

from retrieval.tasks import (  # noqa: F401
    backfill_embeddings,
    backfill_until_done,
    embed_rows_task,
)
