"""The speed benchmark behind `memory_bench`: latency and throughput through the services.

Seeding N items and N turns uses bulk inserts (the services would take minutes per
100k, and seeding is not what is measured); their vectors are real embeddings of a
pool of the texts plus small perturbations of those, so FAISS and full-text search work
on realistic sizes. Everything measured afterwards (recall, conversation search,
writes) goes through the same services as the API, query embedding included.
"""

import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from bench.chroma.timing import peak_rss_mb, timed_ms
from bench.cold import ColdRow, measure_cold
from bench.stage import StageRow, measure_stage, seed_tokens
from bench.synthetic import TextSource
from conversations.corpus import TURNS
from conversations.models import Session, Turn
from conversations.search import search_turns
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create, memory_create_many
from retrieval import keyword
from retrieval.documents import turn_context, turn_text
from retrieval.embedding import current_dim, current_model_id, get_embedder, to_bytes
from retrieval.fulltext_upkeep import fulltext_optimize
from retrieval.generations import generation_bump
from retrieval.indexes import index_cache, index_for

INSERT_BATCH = 2000
TURNS_PER_SESSION = 50


@dataclass
class Row:
    size: int
    seed_seconds: float
    build_ms: float
    recall_p50: float  # the fast path: fused, no judge
    recall_p95: float
    embed_p50: float  # the query embedding alone, on the same questions
    judged_p50: float  # recall with the relevance judge
    judged_p95: float
    judge_p50: float  # the judge alone on the same candidates
    judge_p95: float
    turns_p50: float
    turns_p95: float
    single_per_s: float
    batch_per_s: float
    embed_batch_per_s: float  # the embedder alone on the same batch
    rss_mb: float
    cold: ColdRow | None = None  # cold against warm recall (bench/cold.py)
    stage: StageRow | None = None  # wall and CPU of each part, bytes per row (bench/stage.py)


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


@lru_cache(maxsize=4)
def _embedded(model_id: str, texts: tuple[str, ...]) -> np.ndarray:
    """The embeddings of `texts` (read-only): `memory_eval --distractors` seeds the same
    synthetic texts for every user it makes."""
    vectors = get_embedder().embed(list(texts))
    vectors.setflags(write=False)
    return vectors


def _vectors(texts: list[str], pool: int, rng: np.random.Generator) -> np.ndarray:
    """Real embeddings for the first `pool` texts, perturbed copies of them for the rest."""
    real = _embedded(get_embedder().model_id, tuple(texts[: min(pool, len(texts))]))
    if len(texts) <= len(real):
        return real
    picks = rng.integers(0, len(real), len(texts) - len(real))
    noisy = real[picks] + rng.normal(0, 0.05, (len(picks), real.shape[1])).astype(np.float32)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    return np.concatenate([real, noisy]).astype(np.float32)


def seed(
    user, size: int, source: TextSource, pool: int, rng: np.random.Generator, sourced: bool = False
) -> None:
    """`size` turns and `size` items for `user`, by bulk insert, with vectors.

    With `sourced`, item n is linked to turn n (`source_turn`), as extraction links what it
    learns, so recall also runs its conversation stage.
    """
    model_id = get_embedder().model_id
    now = timezone.now()
    turn_ids = _seed_turns(user, size, source, pool, rng, model_id=model_id, now=now)
    texts = [source.item(n) for n in range(size)]
    vectors = _vectors(texts, pool, rng)
    for start in range(0, size, INSERT_BATCH):
        KnowledgeItem.objects.bulk_create(
            KnowledgeItem(
                owner=user,
                content=texts[n],
                category="fact",
                created_at=now - timedelta(minutes=size - n),
                embedding=to_bytes(vectors[n]),
                embedding_model=model_id,
                source_turn_id=turn_ids[n] if sourced else None,
            )
            for n in range(start, min(size, start + INSERT_BATCH))
        )
    _announce_seeded(user)


def _seed_turns(
    user,
    size: int,
    source: TextSource,
    pool: int,
    rng: np.random.Generator,
    *,
    model_id: str,
    now: datetime,
) -> list[int]:
    """`size` turns for `user` in sessions of TURNS_PER_SESSION, with vectors; their ids."""
    turn_texts = [source.turn(n) for n in range(size)]
    contexts = [
        "" if n % TURNS_PER_SESSION == 0 else turn_context(turn_texts[n - 1]) for n in range(size)
    ]
    docs = [
        turn_text(speaker="", role="user", content=turn_texts[n], context_text=contexts[n])
        for n in range(size)
    ]
    turn_vectors = _vectors(docs, pool, rng)
    sessions = Session.objects.bulk_create(
        Session(owner=user, session_id=f"bench-{s}")
        for s in range((size + TURNS_PER_SESSION - 1) // TURNS_PER_SESSION)
    )
    turn_ids: list[int] = []
    for start in range(0, size, INSERT_BATCH):
        created = Turn.objects.bulk_create(
            Turn(
                owner=user,
                session=sessions[n // TURNS_PER_SESSION],
                role="user",
                content=turn_texts[n],
                context_text=contexts[n],
                timestamp=now - timedelta(minutes=size - n),
                embedding=to_bytes(turn_vectors[n]),
                embedding_model=model_id,
            )
            for n in range(start, min(size, start + INSERT_BATCH))
        )
        turn_ids += [turn.pk for turn in created]
    return turn_ids


def _announce_seeded(user) -> None:
    """Bulk inserts bypass the services: announce them, and refresh the planner's view."""
    with transaction.atomic():
        generation_bump(ITEMS, user.pk)
        generation_bump(TURNS, user.pk)
    if connection.vendor == "postgresql":  # planner statistics, as autovacuum would
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memory_knowledgeitem")
            cursor.execute("ANALYZE conversations_turn")


def measure(
    size: int,
    *,
    queries: int,
    single_writes: int,
    batch_writes: int,
    pool: int,
    other_users: int,
    other_items: int,
    keep: bool,
    sourced: bool = False,
    progress: Callable[[str], None],
) -> Row:
    users = get_user_model().objects
    user = users.create_user(f"bench-{size}-{uuid.uuid4().hex[:8]}")
    others = [users.create_user(f"bench-other-{uuid.uuid4().hex[:8]}") for _ in range(other_users)]
    source, rng = TextSource(seed=size), np.random.default_rng(size)
    try:
        started = time.perf_counter()
        progress(f"N={size}: seeding {size} items and {size} turns ...")
        seed(user, size, source, pool, rng, sourced=sourced)
        for other in others:
            seed(other, other_items, source, min(pool, other_items), rng)
        seed_seconds = time.perf_counter() - started
        progress(f"N={size}: token vectors ({min(pool, size)} encoded, the rest copies) ...")
        tokens_per_s = seed_tokens(user, ITEMS, pool)
        seed_tokens(user, TURNS, pool)
        build_ms = _index_build_ms(user)
        searches = _search_figures(user, size, source, queries, progress, tokens_per_s)
        progress(f"N={size}: {single_writes} single and {batch_writes} batched writes ...")
        writes = _write_figures(user, size, source, single_writes, batch_writes)
        rss_mb = peak_rss_mb()
        return Row(
            size=size,
            seed_seconds=seed_seconds,
            build_ms=build_ms,
            **searches,
            **writes,
            rss_mb=rss_mb,
        )
    finally:
        if not keep:
            progress(f"N={size}: removing the benchmark users ...")
            for person in [user, *others]:
                person.delete()
            fulltext_optimize()  # else the deleted rows' entries slow later searches
            index_cache().clear()


def _index_build_ms(user) -> float:
    """How long the user's item index takes to build from nothing (the turn index is
    built too, not timed)."""
    index_cache().clear()
    keyword.clear_caches()  # term counts seen at a smaller size would mislead the budget
    started = time.perf_counter()
    index_for(ITEMS, user.pk, current_model_id(), current_dim())
    build_ms = (time.perf_counter() - started) * 1000
    index_for(TURNS, user.pk, current_model_id(), current_dim())  # warm, not timed
    return build_ms


def _search_figures(
    user,
    size: int,
    source: TextSource,
    queries: int,
    progress: Callable[[str], None],
    tokens_per_s: float,
) -> dict[str, Any]:
    """The latencies of recall (fast, judged, cold), the judge, the late stage, query
    embedding and conversation search, as the `Row` fields that hold them."""
    progress(f"N={size}: {queries} recalls and {queries} conversation searches ...")
    asked = source.questions(2 * queries + 10)
    for text in asked[:5]:  # warm-up: first-call costs (model session, statements)
        recall(user=user, query=text)
        search_turns(user=user, query=text)
    embedder = get_embedder()  # the floor: the same questions, embedded one at a time
    embeds = timed_ms([lambda t=t: embedder.embed_queries([t]) for t in asked[10 : 10 + queries]])
    recalls = timed_ms(
        [lambda t=t: recall(user=user, query=t, judge=False) for t in asked[10 : 10 + queries]]
    )
    cold = measure_cold(user, size, asked[10 : 10 + queries], min(queries, 20), progress)
    progress(f"N={size}: {queries} judged recalls, the judge alone, the late stage alone ...")
    stage = measure_stage(user, size, asked[10 : 10 + queries], tokens_per_s)
    judged, judge_alone = stage.judged_ms, stage.judge_ms
    turn_searches = timed_ms(
        [lambda t=t: search_turns(user=user, query=t, judge=False) for t in asked[10 + queries :]]
    )
    return {
        "recall_p50": statistics.median(recalls),
        "recall_p95": _percentile(recalls, 95),
        "embed_p50": statistics.median(embeds),
        "judged_p50": statistics.median(judged),
        "judged_p95": _percentile(judged, 95),
        "judge_p50": statistics.median(judge_alone),
        "judge_p95": _percentile(judge_alone, 95),
        "turns_p50": statistics.median(turn_searches),
        "turns_p95": _percentile(turn_searches, 95),
        "cold": cold,
        "stage": stage,
    }


def _write_figures(
    user, size: int, source: TextSource, single_writes: int, batch_writes: int
) -> dict[str, float]:
    """Writes per second, one at a time and batched, and the embedder's own batched rate
    on texts of the same kind, as the `Row` fields that hold them."""
    started = time.perf_counter()
    for n in range(single_writes):
        memory_create(user=user, content=source.item(size + n))
    single_rate = single_writes / (time.perf_counter() - started)
    batch = [{"content": source.item(size + single_writes + n)} for n in range(batch_writes)]
    started = time.perf_counter()
    memory_create_many(user=user, items=batch)
    batch_rate = batch_writes / (time.perf_counter() - started)
    floor = [source.item(size + single_writes + batch_writes + n) for n in range(batch_writes)]
    started = time.perf_counter()
    get_embedder().embed(floor)
    embed_rate = batch_writes / (time.perf_counter() - started)
    return {"single_per_s": single_rate, "batch_per_s": batch_rate, "embed_batch_per_s": embed_rate}


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| N items (+N turns) | query embedding p50 ms | fast recall p50 / p95 ms "
        "| judged recall p50 / p95 ms | judge alone p50 / p95 ms | fast conv. search p50 / p95 ms "
        "| single writes/s | batched writes/s | embedder batched/s | index build ms | seed s "
        "| peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.size:,} | {r.embed_p50:.1f} | {r.recall_p50:.1f} / {r.recall_p95:.1f} "
            f"| {r.judged_p50:.0f} / {r.judged_p95:.0f} | {r.judge_p50:.0f} / {r.judge_p95:.0f} "
            f"| {r.turns_p50:.1f} / {r.turns_p95:.1f} | {r.single_per_s:.0f} "
            f"| {r.batch_per_s:.0f} | {r.embed_batch_per_s:.0f} "
            f"| {r.build_ms:.0f} | {r.seed_seconds:.0f} | {r.rss_mb:.0f} |"
        )
    return lines
