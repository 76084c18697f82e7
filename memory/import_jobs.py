"""Imports of any size: small files at once, large ones by a worker, with progress.

`import_start` checks the whole file first (memory.portability, pass 1: a bad line is a
ValidationError naming it, and nothing is stored). A file of at most
GAIA_IMPORT_SYNC_BYTES is then stored at once, in the caller's process; a larger one is
kept in the database (ImportPart rows of whole lines) and an ImportJob is queued.

A worker runs the job in slices (`import_job_run`, the task `memory.tasks.import_run`):
each slice claims the job (its `heartbeat`), stores chunks for at most SLICE_SECONDS
(each chunk its own short transaction, which also records the lines it stored as
ImportLink rows and the progress), then queues the next slice. A slice whose worker died
leaves a stale heartbeat: the periodic `imports_resume` queues the job again, and the
new run skips the lines already stored. When the job ends, its file and links go; the
job row stays with its counts. Erasing the user's memory deletes their jobs first, which
stops a running one at its next chunk.
"""

import logging
import tempfile
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.chunks import pause, repeat_in_chunks
from core.queue import enqueue_now, enqueue_on_commit
from memory import portability
from memory.models import ImportJob, ImportLink, ImportPart

log = logging.getLogger("gaia.import")
PART_BYTES = 1024 * 1024  # whole lines per ImportPart row
STALE_SECONDS = 300  # a heartbeat older than this: the run holding the job is gone
RECEIVING_TTL = timedelta(hours=1)  # an upload cut off while its parts were stored
RUN_TASK = "memory.tasks.import_run"


def slice_seconds() -> float:
    """How long one slice stores before it queues the next (well inside a task timeout)."""
    return max(1.0, min(60.0, settings.Q_CLUSTER.get("timeout", 120) / 2))


class _Gone(Exception):
    """The job was deleted (its user's memory erased) or taken over: stop quietly."""


class _SliceOver(Exception):
    """This slice has used its time: the next one continues."""


def import_start(
    *, user: Any, lines: Any, trusted: bool
) -> tuple[dict[str, dict[str, int]] | None, ImportJob | None]:
    """Check a whole file, then import it at once (small) or queue a job (large).

    Returns (what was created and skipped, None) or (None, the queued job). `trusted`:
    the owner in the web app, whose items keep their sources and privileged categories.
    """
    ImportJob.objects.for_user(user).filter(
        status="receiving", created_at__lt=timezone.now() - RECEIVING_TTL
    ).delete()
    limit = settings.GAIA_IMPORT_SYNC_BYTES
    with tempfile.SpooledTemporaryFile(max_size=limit + portability.LINE_MAX) as spool:
        checked = portability.check_lines(
            user=user, lines=lines, trusted=trusted, keep=_bounded(spool)
        )

        def source() -> Any:
            spool.seek(0)
            return iter(lambda: spool.readline(portability.LINE_MAX + 1), b"")

        if checked.size <= limit:
            return portability.store_lines(user=user, source=source, trusted=trusted), None
        return None, _job_create(user, source(), checked, trusted)


def _bounded(spool: Any) -> Any:
    total = [0]

    def keep(data: bytes) -> None:
        total[0] += len(data)
        if total[0] > settings.GAIA_MAX_IMPORT_BYTES:
            raise ValidationError(
                f"The file is larger than {settings.GAIA_MAX_IMPORT_BYTES} bytes "
                "(GAIA_MAX_IMPORT_BYTES)."
            )
        spool.write(data)

    return keep


def _job_create(user: Any, lines: Any, checked: Any, trusted: bool) -> ImportJob:
    job = ImportJob.objects.create(
        owner=user, trusted=trusted, size_bytes=checked.size, records_total=checked.records
    )
    number, part, size = 0, [], 0
    for line in lines:
        part.append(line)
        size += len(line)
        if size >= PART_BYTES:
            _part_save(job, number, part)
            number, part, size = number + 1, [], 0
    if part:
        _part_save(job, number, part)
    with transaction.atomic():
        ImportJob.objects.filter(pk=job.pk).update(status="queued")
        enqueue_on_commit(RUN_TASK, job.pk)
    job.refresh_from_db()
    return job


def _part_save(job: ImportJob, number: int, lines: list[bytes]) -> None:
    if number:
        pause()  # one part per short transaction, waiting writers in between
    text = b"".join(lines).decode("utf-8")
    ImportPart.objects.create(owner_id=job.owner_id, job=job, number=number, text=text)


def _lines(job: ImportJob) -> Any:
    """The job's file, line by line as it arrived (split at "\\n" only)."""
    count = ImportPart.objects.filter(job=job).count()
    for number in range(count):
        text = ImportPart.objects.filter(job=job, number=number).values_list("text", flat=True)
        body = text.get()
        start = 0
        while start < len(body):
            end = body.find("\n", start)
            end = len(body) if end < 0 else end + 1
            yield body[start:end]
            start = end


class _JobJournal:
    """The job's place in its file (portability.Journal): lines done, progress, time."""

    def __init__(self, job: ImportJob, deadline: float) -> None:
        self.job, self.deadline = job, deadline
        self.done = dict(ImportLink.objects.filter(job=job).values_list("line", "row_id"))
        self.created, self.skipped = dict(job.created), dict(job.skipped)
        self.stored = False

    def before_chunk(self) -> None:
        if self.stored and timezone.now().timestamp() >= self.deadline:
            raise _SliceOver  # every slice stores at least one chunk

    def hold(self) -> None:
        held = ImportJob.objects.select_for_update().filter(pk=self.job.pk, status="running")
        if not held.exists():
            raise _Gone

    def note(self, rows: list[tuple[int, int]], created: dict, skipped: dict) -> None:
        ImportLink.objects.bulk_create(
            [ImportLink(job=self.job, line=line, row_id=row) for line, row in rows]
        )
        self.done.update(rows)
        self.stored = True
        ImportJob.objects.filter(pk=self.job.pk).update(
            records_done=len(self.done),
            created=created,
            skipped=skipped,
            heartbeat=timezone.now(),
        )


def _claim(job_id: int) -> bool:
    """Take the job for this run, unless another run holds it (recent heartbeat)."""
    now = timezone.now()
    free = Q(heartbeat__isnull=True) | Q(heartbeat__lt=now - timedelta(seconds=STALE_SECONDS))
    claimed = ImportJob.objects.filter(free, pk=job_id, status__in=("queued", "running")).update(
        status="running", heartbeat=now
    )
    if claimed:
        ImportJob.objects.filter(pk=job_id, started_at__isnull=True).update(started_at=now)
    return bool(claimed)


def import_job_run(*, job_id: int) -> str:
    """One slice of a queued import (worker task): store on from where the job got to,
    for at most `slice_seconds()`, then queue the next slice. Returns what happened."""
    if not _claim(job_id):
        return "not claimed"
    job = ImportJob.objects.select_related("owner").get(pk=job_id)
    journal = _JobJournal(job, timezone.now().timestamp() + slice_seconds())
    try:
        result = portability.store_lines(
            user=job.owner, source=lambda: _lines(job), trusted=job.trusted, journal=journal
        )
    except _SliceOver:
        ImportJob.objects.filter(pk=job_id, status="running").update(heartbeat=None)
        enqueue_now(RUN_TASK, (job_id,))
        return "continues"
    except _Gone:
        return "gone"
    except ValidationError as error:
        _finish(job_id, status="failed", error="; ".join(error.messages)[:500])
        return "failed"
    except Exception:
        log.exception("import %s failed", job_id)
        _finish(job_id, status="failed", error="The server failed (see its log); import again.")
        return "failed"
    _finish(job_id, status="done", **result)
    return "done"


def _finish(job_id: int, **fields: Any) -> None:
    """End the job: its outcome stays, its file and links go (in short transactions)."""
    ImportJob.objects.filter(pk=job_id).update(heartbeat=None, finished_at=timezone.now(), **fields)
    for model, first, most in ((ImportLink, 1000, 5000), (ImportPart, 2, 10)):
        repeat_in_chunks(
            lambda size, model=model: _delete_some(model, job_id, size), first=first, most=most
        )


def _delete_some(model: Any, job_id: int, size: int) -> int:
    ids = list(model.objects.filter(job_id=job_id).values_list("pk", flat=True)[:size])
    return model.objects.filter(pk__in=ids).delete()[0] if ids else 0


def imports_resume() -> int:
    """Queue every job no run holds (a worker stopped mid-slice, a lost task), and drop
    uploads cut off long ago. Returns how many jobs were queued."""
    now = timezone.now()
    stale = Q(heartbeat__isnull=True) | Q(heartbeat__lt=now - timedelta(seconds=STALE_SECONDS))
    waiting = ImportJob.objects.filter(
        stale, status__in=("queued", "running"), created_at__lt=now - timedelta(minutes=1)
    )
    ids = list(waiting.values_list("pk", flat=True))
    for job_id in ids:
        enqueue_now(RUN_TASK, (job_id,), dedupe_key=f"import-run:{job_id}", dedupe_seconds=60)
    ImportJob.objects.filter(status="receiving", created_at__lt=now - RECEIVING_TTL).delete()
    return len(ids)
