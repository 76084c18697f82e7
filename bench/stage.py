"""What each part of a recall costs, in wall and CPU time, and what a row stores, for
`memory_bench`: the fast path, the judged path, the judge alone, the late-interaction
stage alone (retrieval/late.py) on the same candidates, and the bytes each item and turn
keeps for its vector and its token vectors.

CPU time is the process's (`time.process_time`, every thread: the keyword stage runs
beside the query embedding), per request, next to the wall time of the same request.
"""

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection

from conversations.corpus import TURNS
from memory.corpus import ITEMS
from memory.recall import recall
from retrieval import judge, late, tokens
from retrieval.corpus import Corpus
from retrieval.documents import texts_for

LATE_CANDIDATES = 30  # what the stage reorders (docs/decisions.md)
SQL_BATCH = 500


@dataclass
class StageRow:
    size: int
    fast: tuple[float, float]  # p50 ms (wall, CPU)
    judged: tuple[float, float]
    judge: tuple[float, float]  # the cross-encoder alone on the candidates it reads
    late: tuple[float, float]  # the late stage alone on LATE_CANDIDATES (question encoded)
    late_query: float  # p50 ms of the question's encoding alone
    pairs: float  # pairs the judge alone read per question
    judged_pairs: float  # pairs the judged recall read per question (mean)
    settled: float  # share of judged recalls the late stage settled without the judge
    item_bytes: tuple[float, float]  # per item: vector, token vectors (rows that have them)
    turn_bytes: tuple[float, float]
    tokens_per_s: float  # the token encoder's batched rate on stored texts
    judged_ms: list[float]  # every question's wall time, for the main table's p95
    judge_ms: list[float]


def timed(call: Callable[[], object]) -> tuple[float, float]:
    """(wall ms, process CPU ms) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def p50s(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def seed_tokens(user: Any, corpus: Corpus, pool: int) -> float:
    """Token vectors for the user's rows of `corpus`: the first `pool` encoded for real,
    the rest given a copy of one of those (their cost at query time is their size).
    Returns the encoder's rate (rows a second) on the real ones."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {corpus.table} WHERE owner_id = %s ORDER BY id", [user.pk])
        ids = [row[0] for row in cursor.fetchall()]
    if not ids or not late.enabled():
        return 0.0
    real = ids[:pool]
    docs = texts_for(corpus, user.pk, real)
    started = time.perf_counter()
    blobs = [tokens.pack(v) for v in tokens.encoder().encode([docs[i][0] for i in real])]
    rate = len(real) / (time.perf_counter() - started)
    sql = f"UPDATE {corpus.table} SET tokens = %s, tokens_model = %s WHERE id = %s"
    rows = [(blobs[n % len(blobs)], tokens.MODEL_ID, row_id) for n, row_id in enumerate(ids)]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), SQL_BATCH):
            cursor.executemany(sql, rows[start : start + SQL_BATCH])
    return rate


def stored_bytes(user: Any, corpus: Corpus) -> tuple[float, float]:
    """Mean bytes per row of the user's `corpus`: its vector, its token vectors."""
    sql = (
        f"SELECT AVG(LENGTH(embedding)), AVG(LENGTH(tokens)) FROM {corpus.table} "
        "WHERE owner_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk])
        vector, token = cursor.fetchone()
    return float(vector or 0), float(token or 0)


def time_parts(user: Any, questions: list[str]) -> dict[str, list]:
    """Per question, (wall, CPU) ms of: the fast recall, the judge alone on the candidates
    it reads, the judged recall (and how many pairs its judge read, whether the late stage
    settled it), the late stage alone on LATE_CANDIDATES (and the question's encoding
    alone). Caches are cleared so each question is new to each part."""
    shown = settings.GAIA_JUDGE_CANDIDATES
    model, encoder = judge.local_judge(), tokens.encoder()
    keys = ("fast", "judge", "judged", "late", "query", "pairs", "judged_pairs", "settled")
    out: dict[str, list] = {k: [] for k in keys}
    for question in questions:
        out["fast"].append(timed(lambda q=question: recall(user=user, query=q, judge=False)))
        head = recall(
            user=user, query=question, top_k=LATE_CANDIDATES, min_relevance=0, judge=False
        )
        texts = [hit.item.content for hit in head[:shown]]
        model.clear_cache()
        out["judge"].append(timed(lambda q=question, t=texts: model.logits(q, t)))
        model.clear_cache()
        read, answers = model.pairs_read, []
        out["judged"].append(
            timed(lambda q=question, a=answers: a.append(recall(user=user, query=q)))
        )
        out["judged_pairs"].append(float(model.pairs_read - read))
        out["settled"].append(float(answers[0].reason == "settled"))
        ids = [hit.item.pk for hit in head]
        encoder.clear_cache()
        out["late"].append(timed(lambda q=question, i=ids: late.scores(ITEMS, user.pk, q, i)))
        encoder.clear_cache()
        out["query"].append(timed(lambda q=question: encoder.encode_query(q)))
        out["pairs"].append(float(len(texts)))
    return out


def measure_stage(user: Any, size: int, questions: list[str], tokens_per_s: float) -> StageRow:
    parts = time_parts(user, questions)
    return StageRow(
        size=size,
        fast=p50s(parts["fast"]),
        judged=p50s(parts["judged"]),
        judge=p50s(parts["judge"]),
        late=p50s(parts["late"]),
        late_query=p50s(parts["query"])[0],
        pairs=float(np.mean(parts["pairs"])),
        judged_pairs=float(np.mean(parts["judged_pairs"])),
        settled=float(np.mean(parts["settled"])),
        item_bytes=stored_bytes(user, ITEMS),
        turn_bytes=stored_bytes(user, TURNS),
        tokens_per_s=tokens_per_s,
        judged_ms=[wall for wall, _ in parts["judged"]],
        judge_ms=[wall for wall, _ in parts["judge"]],
    )


def stage_table(rows: list[StageRow]) -> list[str]:
    lines = [
        "| N items (+N turns) | fast recall p50 ms wall / CPU | judged recall p50 ms wall / CPU "
        "| judge alone p50 ms wall / CPU (pairs) | late stage alone p50 ms wall / CPU "
        "| its question encoding p50 ms | judged / fast (wall, CPU) "
        "| pairs judged per judged recall (mean) | settled without the judge "
        "| bytes per item: vector / token vectors | per turn | token vectors encoded/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = (r.judged[0] / r.fast[0], r.judged[1] / max(r.fast[1], 1e-9))
        lines.append(
            f"| {r.size:,} | {r.fast[0]:.1f} / {r.fast[1]:.1f} "
            f"| {r.judged[0]:.1f} / {r.judged[1]:.1f} "
            f"| {r.judge[0]:.1f} / {r.judge[1]:.1f} ({r.pairs:.0f}) "
            f"| {r.late[0]:.2f} / {r.late[1]:.2f} | {r.late_query:.2f} "
            f"| {ratio[0]:.1f}x / {ratio[1]:.1f}x "
            f"| {r.judged_pairs:.2f} | {r.settled:.0%} "
            f"| {r.item_bytes[0]:.0f} / {r.item_bytes[1]:.0f} "
            f"| {r.turn_bytes[0]:.0f} / {r.turn_bytes[1]:.0f} | {r.tokens_per_s:.0f} |"
        )
    return lines
