"""The periodic jobs, created idempotently by code (`manage.py setup_schedules`), and the
work queued at start-up: the sweeps that catch what was missed while the server was
down, and seed 000's start-up maintenance (decay, reconcile, consolidate, prune, in that
order, each skipped when it ran recently)."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

SCHEDULES = [
    # (schedule name, task, interval setting in minutes)
    (
        "gaia: extract pending turns",
        "learning.tasks.extract_pending_sweep",
        "GAIA_EXTRACT_SWEEP_INTERVAL",
    ),
    (
        "gaia: consolidate idle sessions",
        "learning.tasks.consolidate_sweep",
        "GAIA_CONSOLIDATE_INTERVAL",
    ),
    ("gaia: reconcile", "learning.tasks.reconcile_all", "GAIA_RECONCILE_INTERVAL"),
    ("gaia: decay", "learning.tasks.decay_all", "GAIA_DECAY_INTERVAL"),
    # skill memory's decay (skills app, above this one: named, not imported)
    ("gaia: skills decay", "skills.tasks.decay_skills", "GAIA_DECAY_INTERVAL"),
    ("gaia: prune", "privacy.tasks.prune_all", "GAIA_PRUNE_INTERVAL"),
    ("gaia: resume imports", "memory.tasks.imports_resume", "GAIA_IMPORT_RESUME_INTERVAL"),
    # webhook deliveries due (retries, and what a stopped worker left): webhooks app
    ("gaia: webhook deliveries", "webhooks.tasks.deliver_due", "GAIA_WEBHOOK_SWEEP_INTERVAL"),
    # provided by the embedding package; schedules store a dotted path, nothing imported
    (
        "gaia: backfill embeddings",
        "retrieval.tasks.backfill_embeddings",
        "GAIA_BACKFILL_INTERVAL",
    ),
]
STARTUP_SWEEPS = (
    "learning.tasks.extract_pending_sweep",
    "memory.tasks.imports_resume",
    "webhooks.tasks.deliver_due",
)
# Seed 000's start-up maintenance, run one after another (a django-q2 chain) in this
# order, each only when it has not run within its interval: decay before reconciling
# (faded items need no judging), reconciling before consolidating (a session's facts are
# merged into a settled memory), pruning last. Each is one task under the worker's
# timeout; reconciliation and consolidation queue their per-user work (deduplicated,
# consolidation at most 1000 sessions a sweep), decay and prune read the database only.
STARTUP_MAINTENANCE = (
    ("learning.tasks.decay_all", "GAIA_DECAY_INTERVAL"),
    ("learning.tasks.reconcile_all", "GAIA_RECONCILE_INTERVAL"),
    ("learning.tasks.consolidate_sweep", "GAIA_CONSOLIDATE_INTERVAL"),
    ("privacy.tasks.prune_all", "GAIA_PRUNE_INTERVAL"),
)


def schedules_setup() -> list[tuple[str, str]]:
    """Create or update each schedule from settings; an interval of 0 removes it. A
    changed interval moves the next run too: it is one new interval from now (the stored
    next run was computed from the old one). `serve` runs this on every start.

    Returns (name, what happened) pairs. Running it again changes nothing.
    """
    from django_q.models import Schedule

    report = []
    for name, func, knob in SCHEDULES:
        minutes = int(getattr(settings, knob))
        existing = Schedule.objects.filter(name=name)
        if minutes <= 0:
            removed = existing.delete()[0]
            report.append((name, "removed" if removed else "off"))
            continue
        wanted = {
            "func": func,
            "schedule_type": Schedule.MINUTES,
            "minutes": minutes,
            "repeats": -1,
        }
        row = existing.first()
        if row is None:
            Schedule.objects.create(name=name, next_run=timezone.now(), **wanted)
            report.append((name, f"created, every {minutes} min"))
        elif any(getattr(row, k) != v for k, v in wanted.items()):
            if row.minutes != minutes:
                wanted["next_run"] = timezone.now() + timedelta(minutes=minutes)
            existing.update(**wanted)
            report.append((name, f"updated, every {minutes} min"))
        else:
            report.append((name, f"unchanged, every {minutes} min"))
    return report


def _name(func: str) -> str:
    return f"startup:{func.rsplit('.', 1)[-1]}"


def ran_recently(func: str, minutes: int) -> bool:
    """Whether task `func` ended well within the last `minutes` (django-q2's records:
    a scheduled run or a start-up one)."""
    from django_q.models import Success

    since = timezone.now() - timedelta(minutes=minutes)
    return Success.objects.filter(func=func, stopped__gte=since).exists()


def startup_maintenance() -> tuple[list[str], list[str]]:
    """The maintenance steps due now, in seed 000's order, and those skipped: off (an
    interval of 0) or run within their interval."""
    due, skipped = [], []
    for func, knob in STARTUP_MAINTENANCE:
        minutes = int(getattr(settings, knob))
        (skipped if minutes <= 0 or ran_recently(func, minutes) else due).append(func)
    return due, skipped


def startup_sweeps() -> list[str]:
    """Queue the sweeps that catch work missed while the server was down, and the
    maintenance steps due, as one chain in order; the tasks queued."""
    from django_q.tasks import async_chain, async_task

    for func in STARTUP_SWEEPS:
        async_task(func, task_name=_name(func))
    due, _ = startup_maintenance()
    if due:
        async_chain([(func, (), {"task_name": _name(func)}) for func in due])
    return [*STARTUP_SWEEPS, *due]
