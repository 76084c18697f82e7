"""Imports of any size: small files at once, large ones by a worker, with progress.

A file of at most GAIA_IMPORT_SYNC_BYTES is checked whole (memory.portability, pass 1:
a bad line is a ValidationError naming it, and nothing is stored), then stored at once,
in the caller's process. A larger one is only received there: kept in the database
(ImportPart rows of whole lines) and an ImportJob queued. Checking every record runs the
services' validation (the secret detector above all, ~2 ms a record), and done in the
request it took a web process's CPU for seconds to minutes: the other users' requests
that process served waited behind it (a 4 MB file: writes' p99 over a second).

A worker runs the job in slices (`import_job_run`, the task `memory.tasks.import_run`):
each slice claims the job (its `heartbeat`) and works for at most `slice_seconds()`.
First it checks the file (pass 1, `check_some`; where it got to is kept in
the job's CHECK_PART row between slices): a bad line fails the job naming it, and
nothing is stored. Then it stores chunks (each its own short transaction, which also
records the lines it stored as ImportLink rows and the progress), then queues the next
slice. A slice whose worker died leaves a stale heartbeat: the periodic `imports_resume`
queues the job again, and the new run goes on from where the last one got to. When the
job ends, its file and links go; the job row stays with its counts. Erasing the user's
memory deletes their jobs first, which stops a running one at its next chunk.
"""

import json
import logging
import tempfile
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.chunks import pause, repeat_in_chunks
from core.queue import enqueue_now, enqueue_on_commit
from memory.imports import memory_import_allowed
from memory.models import ImportJob, ImportLink, ImportPart
from memory.portability.check import check_lines, check_some
from memory.portability.format import LINE_MAX
from memory.portability.store import store_lines

log = logging.getLogger("gaia.import")
PART_BYTES = 1024 * 1024  # whole lines per ImportPart row
STALE_SECONDS = 300  # a heartbeat older than this: the run holding the job is gone
RECEIVING_TTL = timedelta(hours=1)  # an upload cut off while its parts were stored
RUN_TASK = "memory.tasks.import_run"
CHECK_PART = 2**31 - 1  # the ImportPart holding the check's state until the file is checked


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
    """Import a file at once (small: checked, then stored) or queue a job (large: the
    worker checks it, then stores it).

    Returns (what was created and skipped, None) or (None, the queued job). `trusted`:
    the owner in the web app, whose items keep their sources and privileged categories.
    """
    ImportJob.objects.for_user(user).filter(
        status="receiving", created_at__lt=timezone.now() - RECEIVING_TTL
    ).delete()
    memory_import_allowed(user=user, trusted=trusted)
    limit = settings.GAIA_IMPORT_SYNC_BYTES
    with tempfile.SpooledTemporaryFile(max_size=limit + LINE_MAX) as spool:
        keep = _bounded(spool)
        for raw in lines:
            keep(raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass"))
        size = spool.tell()

        def source() -> Any:
            spool.seek(0)
            return iter(lambda: spool.readline(LINE_MAX + 1), b"")

        if size <= limit:
            check_lines(user=user, lines=source(), trusted=trusted)
            return store_lines(user=user, source=source, trusted=trusted), None
        return None, _job_create(user, source(), size, trusted)


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


def _job_create(user: Any, lines: Any, size: int, trusted: bool) -> ImportJob:
    """Keep a received file for a worker: its parts, the check to do, the queued job.
    `records_total` stays 0 until the worker has checked the file."""
    job = ImportJob.objects.create(owner=user, trusted=trusted, size_bytes=size)
    ImportPart.objects.create(owner_id=user.pk, job=job, number=CHECK_PART, text="{}")
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
    count = ImportPart.objects.filter(job=job, number__lt=CHECK_PART).count()
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
    """The job's place in its file (a portability Journal): lines done, progress, time."""

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
    deadline = timezone.now().timestamp() + slice_seconds()
    journal = _JobJournal(job, deadline)
    try:
        if not _checked(job, deadline):
            raise _SliceOver
        result = store_lines(
            user=job.owner, source=lambda: _lines(job), trusted=job.trusted, journal=journal
        )
    except _SliceOver:
        ImportJob.objects.filter(pk=job_id, status="running").update(heartbeat=None)
        enqueue_now(RUN_TASK, (job_id,))
        return "continues"
    except _Gone:
        return "gone"
    except ValidationError as error:
        _finish(job_id, status="failed", error=_error_text(error)[:500])
        return "failed"
    except Exception:
        log.exception("import %s failed", job_id)
        _finish(job_id, status="failed", error="The server failed (see its log); import again.")
        return "failed"
    _finish(job_id, status="done", **result)
    return "done"


def _error_text(error: ValidationError) -> str:
    """The error as the job shows it: the line a check names comes first
    ("line 7: content: May not be empty.")."""
    if not hasattr(error, "error_dict"):
        return "; ".join(error.messages)
    return "; ".join(f"{where}: {m}" for where, ms in error.message_dict.items() for m in ms)


def _checked(job: ImportJob, deadline: float) -> bool:
    """Pass 1 of a job, in slices: check the file on from where the last slice got to,
    until `deadline`. True once the whole file is checked (its CHECK_PART is gone);
    a bad line raises ValidationError naming it, before anything is stored."""
    part = ImportPart.objects.filter(job=job, number=CHECK_PART).first()
    if part is None:
        return True
    state, checked = check_some(
        user=job.owner,
        lines=_lines(job),
        trusted=job.trusted,
        state=json.loads(part.text) or None,
        stop=lambda: time.time() >= deadline,
    )
    with transaction.atomic():
        if not ImportJob.objects.select_for_update().filter(pk=job.pk, status="running").exists():
            raise _Gone
        if checked is None:
            ImportPart.objects.filter(pk=part.pk).update(text=json.dumps(state))
            ImportJob.objects.filter(pk=job.pk).update(heartbeat=timezone.now())
            return False
        ImportPart.objects.filter(pk=part.pk).delete()
        ImportJob.objects.filter(pk=job.pk).update(records_total=checked.records)
    return True


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
