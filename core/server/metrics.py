"""Prometheus metrics (prometheus-client, docs/operating.md "Metrics"), off unless
GAIA_METRICS is on, scraped at /metrics with GAIA_METRICS_TOKEN.

The families live here; the code they measure calls the small helpers below (one line at
each place). Counters and histograms are per process: with several gunicorn workers (and
task workers on the same node) prometheus-client's multiprocess mode writes them to
files in GAIA_METRICS_DIR (PROMETHEUS_MULTIPROC_DIR, set by the settings before
prometheus-client is imported) and the scrape, answered by any worker, adds them up.
What is one figure for the whole installation (backlogs, failed tasks) is read from the
database at the scrape (`DATABASE_GAUGES`), so every node reports the same value.
"""

import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils.module_loading import import_string
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
REQUESTS = Counter(
    "gaia_http_requests", "Requests answered, by route, method and status.",
    ["route", "method", "status"],
)  # fmt: skip
LATENCY = Histogram(
    "gaia_http_request_duration_seconds", "Time to answer a request, by route and method.",
    ["route", "method"], buckets=SECONDS,
)  # fmt: skip
RECALL_STAGE = Histogram(
    "gaia_recall_stage_duration_seconds",
    "Time in each stage of recall: embed (the query's vector), keyword, vector, judge.",
    ["stage"], buckets=SECONDS,
)  # fmt: skip
UNJUDGED = Counter(
    "gaia_recall_unjudged", "Recall answers with judged: false, by reason.", ["reason"]
)
INDEX_CACHE = Counter(
    "gaia_index_cache_lookups",
    "Vector-index cache lookups by outcome: hit, catch_up, build, rebuild.", ["outcome"],
)  # fmt: skip
INDEX_CACHE_BYTES = Gauge(
    "gaia_index_cache_bytes", "Bytes of vector indexes cached (all processes of the node).",
    multiprocess_mode="livesum",
)  # fmt: skip
SNAPSHOTS = Counter(
    "gaia_index_snapshots",
    "Index snapshots on disk by outcome: loaded, caught_up, missing, refused, written.",
    ["outcome"],
)  # fmt: skip
MODEL_LOAD_ERRORS = Counter(
    "gaia_model_load_errors", "Local models that failed to load, by model.", ["model"]
)
# name, help, the dotted path of a function of no arguments: {labels tuple: value} or a number
DATABASE_GAUGES = (
    ("gaia_extraction_backlog", "Turns waiting for extraction.",
     "conversations.selectors.turns_awaiting_extraction", ()),
    ("gaia_webhook_backlog", "Webhook deliveries waiting to be sent.",
     "webhooks.selectors.deliveries_waiting", ()),
    ("gaia_task_failures", "Failed background tasks in the task log, by task.",
     "core.server.metrics.task_failures", ("task",)),
)  # fmt: skip


# Every known label value starts at 0, so each family is in every scrape (in multiprocess
# mode a family no process has touched would be missing) and rate() sees its first step.
for _model in ("embedder", "judge"):
    MODEL_LOAD_ERRORS.labels(_model)
for _reason in ("off", "skipped", "deadline", "unavailable"):
    UNJUDGED.labels(_reason)
for _outcome in ("hit", "catch_up", "build", "rebuild"):
    INDEX_CACHE.labels(_outcome)
for _outcome in ("loaded", "caught_up", "missing", "refused", "written"):
    SNAPSHOTS.labels(_outcome)
for _stage in ("embed", "keyword", "vector", "judge"):
    RECALL_STAGE.labels(_stage)


def enabled() -> bool:
    return bool(settings.GAIA_METRICS)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time a stage of recall (`with metrics.stage("judge"): ...`)."""
    began = time.perf_counter()
    try:
        yield
    finally:
        RECALL_STAGE.labels(name).observe(time.perf_counter() - began)


def timed(name: str) -> Callable:
    """A function as a stage of recall: `@metrics.timed("keyword")`."""

    def wrap(func: Callable) -> Callable:
        @wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with stage(name):
                return func(*args, **kwargs)

        return run

    return wrap


def unjudged(reason: str) -> None:
    UNJUDGED.labels(reason or "unknown").inc()


def index_cache(outcome: str, nbytes: int | None = None) -> None:
    INDEX_CACHE.labels(outcome).inc()
    if nbytes is not None:
        INDEX_CACHE_BYTES.set(nbytes)


def model_load_error(model: str) -> None:
    MODEL_LOAD_ERRORS.labels(model).inc()


def task_failures() -> dict[tuple[str], int]:
    """Failed task records django-q2 keeps (GAIA_Q_SAVE_LIMIT), by task function."""
    from django_q.models import Failure  # django-q2's model: importable once apps are ready

    counts: dict[tuple[str], int] = {}
    for func, count in Failure.objects.values_list("func").annotate(n=Count("id")).order_by():
        key = (str(func).rsplit(".", 1)[-1][:60],)
        counts[key] = counts.get(key, 0) + count
    return counts


class _DatabaseGauges:
    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, text, path, labels in DATABASE_GAUGES:
            family = GaugeMetricFamily(name, text, labels=list(labels) or None)
            value = import_string(path)()
            if isinstance(value, dict):
                for key, count in sorted(value.items()):
                    family.add_metric(list(key), count)
            else:
                family.add_metric([], value)
            yield family


_LIVE_GAUGE_FILE = re.compile(r"^gauge_live[a-z]+_(\d+)\.db$")


def _running(pid: int) -> bool:
    """Whether process `pid` of this node is running (a zombie has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc (not Linux): kill's answer stands


def forget_ended_processes(directory: str) -> list[int]:
    """The live gauges of processes that ended unannounced stop counting: a task worker
    recycled or killed at its timeout, a web worker killed -9 (gunicorn's `child_exit`
    marks only the workers it reaps). Their counters stay: they are totals. Returns the
    pids forgotten."""
    ended = set()
    for name in os.listdir(directory):
        match = _LIVE_GAUGE_FILE.match(name)
        if match and int(match.group(1)) != os.getpid() and not _running(int(match.group(1))):
            ended.add(int(match.group(1)))
    for pid in sorted(ended):
        multiprocess.mark_process_dead(pid, directory)
    return sorted(ended)


def scrape() -> tuple[bytes, str]:
    """The text exposition of this node: every process's families, and the database's."""
    registry = CollectorRegistry()
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        forget_ended_processes(directory)
        multiprocess.MultiProcessCollector(registry)
    else:
        for family in (REQUESTS, LATENCY, RECALL_STAGE, UNJUDGED, INDEX_CACHE):
            registry.register(family)
        for family in (INDEX_CACHE_BYTES, SNAPSHOTS, MODEL_LOAD_ERRORS):
            registry.register(family)
    registry.register(_DatabaseGauges())
    return generate_latest(registry), CONTENT_TYPE_LATEST


def process_dead(pid: int) -> None:
    """A worker ended: its live gauges stop counting (gunicorn's child_exit)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)
