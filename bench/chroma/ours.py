"""This project's side of the comparison, and the embedder alone (each in its own process).

Ingest goes through `memory_create_many` (validation, dedup, full-text, embedding and
the index update on commit: what an agent's batched remember does), recall through
`memory.recall.recall`, as the API calls them. The token vectors of late interaction are
stored by a background thread (retrieval/late_writes.py): the time it still needs once
ingest returned is reported beside it, and the bytes each item keeps on disk.
"""

import time
import uuid

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bench.chroma.timing import WARM_UP, batches, folder_bytes, one_text_times, summary, timed_ms
from bench.chroma.workload import Workload
from bench.stage import stored_bytes
from memory.corpus import ITEMS
from memory.recall import recall
from memory.services import memory_create_many
from retrieval import late_writes
from retrieval.embedding import get_embedder


def run_ours(workload: Workload, *, batch: int, queries: int, top_k: int) -> dict:
    """Ingest and recall through the services in this process's database (migrated here)."""
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user(f"compare-{uuid.uuid4().hex[:8]}")
    asked = workload.questions[: WARM_UP + queries]
    one_text = one_text_times(get_embedder().embed, asked)
    started = time.perf_counter()
    for chunk in batches(workload, batch):
        memory_create_many(user=user, items=[{"content": t, "context": c} for t, c in chunk])
    ingest_s = time.perf_counter() - started
    started = time.perf_counter()
    late_writes.flush()  # the token vectors the background writer still had to store
    drain_s = time.perf_counter() - started
    for text in asked[:WARM_UP]:
        recall(user=user, query=text, top_k=top_k)
    latencies = timed_ms(
        [lambda t=t: recall(user=user, query=t, top_k=top_k) for t in asked[WARM_UP:]]
    )
    result = summary(ingest_s, len(workload.items), latencies, one_text)
    vector, tokens = stored_bytes(user, ITEMS)
    result.update(
        tokens_drain_s=drain_s,
        vector_bytes=vector,
        token_bytes=tokens,
        disk_bytes=folder_bytes(settings.DATA_DIR) / len(workload.items),
    )
    return result


def run_embedder(workload: Workload, *, batch: int, queries: int, top_k: int) -> dict:
    """The floor: the embedder on the same texts (batches) and questions (one at a time)."""
    embedder = workload.embedder()
    asked = workload.questions[: WARM_UP + queries]
    one_text = one_text_times(embedder.embed, asked)
    started = time.perf_counter()
    for chunk in batches(workload, batch):
        embedder.embed([t for t, _ in chunk])
    ingest_s = time.perf_counter() - started
    return summary(ingest_s, len(workload.items), one_text, one_text)
