"""Cold against warm recall, in the same run: what a process that has not seen a user pays.

A cold recall runs after `clear_process_caches()`: this process holds nothing of the user
(vector index, word counts, vocabulary, query vectors), as in a process that never served
them. With index snapshots (retrieval/snapshots.py) it maps the user's snapshot; the
same questions are also timed with snapshots off (the index built from the database).
Warm recalls embed their question too (the query-vector cache is emptied before each),
so the two differ only by what the process held of the user. A last column times cold
recalls once the user wrote a few items after their snapshot, as most snapshots are in
use (rewritten only every 16 generations): mapped, then caught up from the change log.
"""

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.test import override_settings

from memory.corpus import ITEMS
from memory.recall import recall
from memory.services import memory_create_many
from retrieval import query, snapshots
from retrieval.caches import clear_process_caches
from retrieval.embedding import current_dim, current_model_id
from retrieval.indexes import index_for

BEHIND = 8  # items written after the snapshot for the caught-up column


@dataclass
class ColdRow:
    size: int
    warm_p50: float
    cold_p50: float
    cold_p95: float
    unsnapped_p50: float  # cold, snapshots off: the index built from the database
    behind_p50: float  # cold, the snapshot BEHIND writes behind: caught up from the change log
    snapshot_write_ms: float
    snapshot_mb: float
    loaded: int  # cold recalls that mapped a snapshot (should be all of them)
    caught_up: int  # cold recalls after the writes that caught a snapshot up (all of them)


def _timed_cold(user, questions: list[str], how: str = "loaded") -> tuple[list[float], int]:
    times, counted = [], 0
    for text in questions:
        clear_process_caches()
        started = time.perf_counter()
        recall(user=user, query=text, judge=False)
        times.append((time.perf_counter() - started) * 1000)
        counted += snapshots.counts[how]
    return times, counted


def _timed_behind(user, questions: list[str]) -> tuple[list[float], int]:
    """Cold recalls once the user wrote BEHIND items after their snapshot: each maps it and
    catches up from the change log (too few writes for a process to write it anew)."""
    items = [{"content": f"Bench note {n} written after the snapshot"} for n in range(BEHIND)]
    memory_create_many(user=user, items=items)
    snapshots.flush()
    return _timed_cold(user, questions, "caught_up")


def measure_cold(
    user, size: int, questions: list[str], unsnapped: int, progress: Callable[[str], None]
) -> ColdRow:
    """Warm, cold and cold-without-snapshots recall p50 on the same questions."""
    progress(f"N={size}: {len(questions)} warm, cold and {unsnapped} unsnapshotted recalls ...")
    snapshots.snapshots_erase(user.pk)
    clear_process_caches()
    index = index_for(ITEMS, user.pk, current_model_id(), current_dim())
    snapshots.flush()  # the write the build queued
    started = time.perf_counter()
    snapshots.snapshot_save_later(ITEMS.name, user.pk, current_model_id(), index)
    snapshots.flush()
    write_ms = (time.perf_counter() - started) * 1000
    folder = snapshots.owner_dir(user.pk)
    disk = sum(p.stat().st_size for p in Path(folder).glob("*")) if folder.is_dir() else 0
    for text in questions[:5]:  # warm-up, not timed
        recall(user=user, query=text, judge=False)
    warm = []
    for text in questions:
        query.clear_cache()  # each recall embeds its question, as a cold one does
        started = time.perf_counter()
        recall(user=user, query=text, judge=False)
        warm.append((time.perf_counter() - started) * 1000)
    cold, loaded = _timed_cold(user, questions)
    with override_settings(GAIA_INDEX_SNAPSHOTS=False):
        plain, _ = _timed_cold(user, questions[:unsnapped])
    behind, caught_up = _timed_behind(user, questions)
    clear_process_caches()
    return ColdRow(
        size=size,
        warm_p50=statistics.median(warm),
        cold_p50=statistics.median(cold),
        cold_p95=float(np.percentile(cold, 95)),
        unsnapped_p50=statistics.median(plain),
        behind_p50=statistics.median(behind),
        snapshot_write_ms=write_ms,
        snapshot_mb=disk / 1e6,
        loaded=loaded,
        caught_up=caught_up,
    )


def cold_table(rows: list[ColdRow]) -> list[str]:
    lines = [
        "| N items | warm recall p50 ms | cold recall p50 / p95 ms | cold / warm "
        "| cold, no snapshot p50 ms | cold recalls from a snapshot | snapshot write ms "
        f"| snapshot MB | cold, snapshot {BEHIND} writes behind p50 ms | of them caught up |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.size:,} | {r.warm_p50:.1f} | {r.cold_p50:.1f} / {r.cold_p95:.1f} "
            f"| {r.cold_p50 / r.warm_p50:.2f}x | {r.unsnapped_p50:.1f} "
            f"| {r.loaded} | {r.snapshot_write_ms:.0f} | {r.snapshot_mb:.1f} "
            f"| {r.behind_p50:.1f} | {r.caught_up} |"
        )
    return lines
