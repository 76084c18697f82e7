"""Timing helpers shared by every side of the comparison (no Django: Chroma's venv runs them)."""

import resource
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from bench.chroma.workload import Workload

WARM_UP = 5  # questions asked before timing (first-call costs), never timed


def folder_bytes(folder: str | Path) -> int:
    """Bytes of every file under `folder` (a store's data on disk)."""
    return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed_ms(calls: Iterable[Callable[[], object]]) -> list[float]:
    """How long each call took, in milliseconds."""
    out = []
    for call in calls:
        started = time.perf_counter()
        call()
        out.append((time.perf_counter() - started) * 1000)
    return out


def summary(ingest_s: float, items: int, latencies: list[float], one_text: list[float]) -> dict:
    return {
        "ingest_per_s": items / ingest_s,
        "p50": float(np.percentile(latencies, 50)),
        "p95": float(np.percentile(latencies, 95)),
        "one_text_p50": float(np.percentile(one_text, 50)),
        "rss_mb": peak_rss_mb(),
    }


def one_text_times(embed, questions: list[str]) -> list[float]:
    """The embedder's own time for one question (the part of recall no stack can skip)."""
    for text in questions[:WARM_UP]:
        embed([text])
    return timed_ms([lambda t=t: embed([t]) for t in questions[WARM_UP:]])


def batches(workload: Workload, size: int):
    for start in range(0, len(workload.items), size):
        yield workload.items[start : start + size]
