"""Health checks for the database and the background worker (registered at start-up).

Worker heartbeat, by broker:
- sync tasks (`GAIA_SYNC_TASKS`): tasks run inline, there is no worker to watch.
- Redis: django-q2's own cluster statistics (`django_q.status.Stat`), which every running
  cluster refreshes in the shared cache every few seconds: ok when one is reporting.
- ORM broker (default): the cache is per process, so cluster statistics are invisible to
  the web process. The queue tells instead: the ORM broker stamps each queued task's
  `lock` with its enqueue time, so the oldest unclaimed task's age shows whether anything
  consumes the queue: ok unless a task has waited longer than GAIA_WORKER_STALE_SECONDS.
  The time of the last finished task is reported alongside.
Messages never include connection strings or keys.
"""

import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Max, Min
from django.utils import timezone

from core.server import health
from core.server.storage_full import storage_check


def database_check() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # report the kind only: driver messages name hosts/users
        return {"ok": False, "vendor": connection.vendor, "error": type(error).__name__}
    return {
        "ok": True,
        "vendor": connection.vendor,
        "latency_ms": round((time.perf_counter() - started) * 1000, 1),
    }


def _last_task_at() -> str | None:
    from django_q.models import Task

    last = Task.objects.aggregate(last=Max("stopped"))["last"]
    return last.isoformat() if last else None


def worker_check() -> dict[str, Any]:
    cluster = settings.Q_CLUSTER
    if cluster.get("sync"):
        return {"ok": True, "mode": "sync"}
    if cluster.get("redis"):
        from django_q.status import Stat

        stats = Stat.get_all()
        return {
            "ok": bool(stats),
            "mode": "redis",
            "heartbeat": "cluster_stats",
            "clusters": len(stats),
            "last_task_at": _last_task_at(),
        }
    from django_q.models import OrmQ

    now = timezone.now()
    waiting = OrmQ.objects.filter(key=cluster["name"], lock__lte=now)
    row = waiting.aggregate(oldest=Min("lock"))
    oldest = (now - row["oldest"]).total_seconds() if row["oldest"] else 0.0
    stale_after = settings.GAIA_WORKER_STALE_SECONDS
    return {
        "ok": oldest <= stale_after,
        "mode": "orm",
        "heartbeat": "queue_age",
        "queued": waiting.count(),
        "oldest_queued_seconds": round(oldest, 1),
        "stale_after_seconds": stale_after,
        "last_task_at": _last_task_at(),
    }


def register() -> None:
    health.register("database", database_check)
    health.register("worker", worker_check)
    health.register("storage", storage_check)
