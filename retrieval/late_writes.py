"""Token vectors on write: computed after commit, off the request, stored with the row.

Every knowledge or turn write announces the ids it changed (`retrieval.events`); once the
transaction commits, those ids go to this process's token writer, one background thread
that runs the late-interaction encoder (`retrieval.tokens`) at a lower CPU priority than
the requests and stores each row's vectors with its model id in one short transaction
per batch. The request never waits on it: a write costs the embedder's run, not two model
runs. Until a row has its vectors, the ranking stage reads it without them.

Like the embedding, a row's vectors are stored only while the text they were computed
from is still the row's text (`corpus.embedded_columns` as read: an edit, a fold or a
redaction meanwhile clears them and the next write announces the row again), and a row
whose vectors are missing or of another model is picked up by the backfill (the
`memory_backfill` command, the scheduled task and start-up), in bounded, resumable steps.

GAIA_LATE_WRITES: "background" (the default), "inline" (after commit, in the writer's
thread: tests, benchmarks) or "off" (only the backfill computes them). GAIA_LATE=off
turns late interaction off altogether.
"""

import atexit
import logging
import os
import queue
import threading
import time
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction

from core.server import health
from retrieval import events, tokens
from retrieval.corpus import Corpus, declared, named
from retrieval.documents import texts_for

log = logging.getLogger(__name__)
CHUNK = 500  # ids per IN (...) list
QUEUE_ROWS = 20_000  # announced rows waiting at most; past it the backfill catches up
BATCH_ROWS = 128  # rows encoded and stored per transaction
BACKFILL_SECONDS = 60.0
STOP_SECONDS = 30.0  # at exit, the batch being encoded may finish within this


def enabled() -> bool:
    return (settings.GAIA_LATE or "local").strip().lower() not in {"off", "none", "0", "false"}


def _write_mode() -> str:
    return (settings.GAIA_LATE_WRITES or "background").strip().lower()


def _needs_sql(corpus: Corpus, owner_id: int | None) -> tuple[str, list[Any]]:
    """Searchable rows of `corpus` (of `owner_id`, if given) with no vectors of the model."""
    where = f"{corpus.active_sql} AND (t.tokens IS NULL OR t.tokens_model <> %s)"
    params: list[Any] = [tokens.MODEL_ID]
    if owner_id is not None:
        where += " AND t.owner_id = %s"
        params.append(owner_id)
    return where, params


def tokens_pending(corpus: Corpus, owner_id: int, ids: list[int]) -> list[int]:
    """Those of the owner's `ids` that are searchable and lack vectors of the current model."""
    out: list[int] = []
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        where, params = _needs_sql(corpus, owner_id)
        sql = (
            f"SELECT t.id FROM {corpus.table} t WHERE {where} "
            f"AND t.id IN ({', '.join(['%s'] * len(chunk))})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, *chunk])
            out += [row[0] for row in cursor.fetchall()]
    return out


def tokens_rows(corpus: Corpus, owner_id: int, ids: list[int]) -> int:
    """Encode those of the owner's rows `ids` that lack current token vectors (as the
    embedder reads them) and store them where the text is unchanged; returns how many
    were stored. A row announced without a new text (restored, re-dated, folded into
    with the same words) keeps its vectors and costs no model run. Raises TokensError
    when the model cannot run (nothing is stored then)."""
    docs = texts_for(corpus, owner_id, tokens_pending(corpus, owner_id, ids))
    if not docs:
        return 0
    order = list(docs)
    vectors = tokens.encoder().encode([docs[i][0] for i in order])
    guard = " AND ".join(f"{column} = %s" for column in corpus.embedded_columns)
    sql = (
        f"UPDATE {corpus.table} SET tokens = %s, tokens_model = %s "
        f"WHERE id = %s AND owner_id = %s AND {guard}"
    )
    saved = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for row_id, matrix in zip(order, vectors, strict=True):
            if not len(matrix):
                continue
            blob = tokens.pack(matrix)
            cursor.execute(sql, [blob, tokens.MODEL_ID, row_id, owner_id, *docs[row_id][1]])
            saved += cursor.rowcount
    return saved


def tokens_missing(*, user: Any = None) -> dict[str, int]:
    """Searchable rows lacking token vectors of the current model, per corpus."""
    out = {}
    for corpus in declared():
        where, params = _needs_sql(corpus, user.pk if user is not None else None)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {corpus.table} t WHERE {where}", params)
            out[corpus.name] = int(cursor.fetchone()[0])
    return out


def tokens_backfill(
    *, limit: int = 500, user: Any = None, seconds: float = BACKFILL_SECONDS
) -> int:
    """Encode up to `limit` rows lacking current token vectors (items before turns), in
    batches of BATCH_ROWS; stops early after `seconds`. Returns how many were stored.
    Raises TokensError when the model is unusable (a scheduled run is recorded failed)."""
    if not enabled():
        return 0
    deadline = time.monotonic() + seconds
    done = 0
    for corpus in declared():
        where, params = _needs_sql(corpus, user.pk if user is not None else None)
        sql = f"SELECT t.owner_id, t.id FROM {corpus.table} t WHERE {where} ORDER BY t.id LIMIT %s"
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, max(0, limit - done)])
            rows = cursor.fetchall()
        by_owner: dict[int, list[int]] = defaultdict(list)
        for owner_id, row_id in rows:
            by_owner[owner_id].append(row_id)
        for owner_id, ids in by_owner.items():
            for start in range(0, len(ids), BATCH_ROWS):
                done += tokens_rows(corpus, owner_id, ids[start : start + BATCH_ROWS])
                if time.monotonic() > deadline:
                    return done
        if done >= limit:
            break
    return done


class _Writer:
    """The process's token writer: one thread, niced, fed by committed writes."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, int, tuple[int, ...]]] = queue.Queue()
        self._queued = 0  # rows waiting
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._stopping = False

    def submit(self, corpus: Corpus, owner_id: int, ids: list[int]) -> None:
        with self._lock:
            if self._queued + len(ids) > QUEUE_ROWS:
                return  # the backfill stores them later
            if self._thread is None or self._pid != os.getpid():  # threads do not survive fork
                self._queue = queue.Queue()
                self._queued = 0
                self._thread = threading.Thread(target=self._loop, name="late-tokens", daemon=True)
                self._pid = os.getpid()
                self._thread.start()
            self._queued += len(ids)
            self._queue.put((corpus.name, owner_id, tuple(ids)))

    @property
    def queued(self) -> int:
        """Rows waiting for their token vectors in this process."""
        return self._queued

    def flush(self) -> None:
        """Wait until every row submitted so far is handled (tests, benchmarks)."""
        if self._thread is not None and self._pid == os.getpid():
            self._queue.join()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """At exit: let the batch being encoded finish (a model run cut off by the
        interpreter's end aborts the process); what is still queued is left to the
        backfill."""
        thread = self._thread
        if thread is None or self._pid != os.getpid() or not thread.is_alive():
            return
        self._stopping = True
        self._queue.put(("", 0, ()))  # wakes an idle loop
        thread.join(timeout)

    def _loop(self) -> None:
        _lower_priority()
        while not self._stopping:
            work = [self._queue.get()]
            rows = len(work[0][2])
            while rows < BATCH_ROWS:
                try:
                    work.append(self._queue.get_nowait())
                except queue.Empty:
                    break
                rows += len(work[-1][2])
            try:
                self._handle(work)
            finally:
                with self._lock:
                    self._queued -= rows
                for _ in work:
                    self._queue.task_done()

    def _handle(self, work: list[tuple[str, int, tuple[int, ...]]]) -> None:
        close_old_connections()
        grouped: dict[tuple[str, int], set[int]] = defaultdict(set)
        for name, owner_id, ids in work:
            if ids and not self._stopping:
                grouped[(name, owner_id)].update(ids)
        for (name, owner_id), ids in grouped.items():
            if self._stopping:
                break
            try:
                tokens_rows(named(name), owner_id, sorted(ids))
            except DatabaseError as error:  # the lock held long elsewhere (a large erase)
                log.warning(
                    "token vectors of %d %s rows left to the backfill: %s", len(ids), name, error
                )
            except Exception:  # committed rows stay; the backfill stores their vectors
                log.exception("token vectors of %d %s rows not stored", len(ids), name)
        close_old_connections()


def _lower_priority() -> None:
    """Requests come first on shared cores: this thread runs as niced as the task workers."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), settings.GAIA_WORKER_NICE)
    except (OSError, AttributeError, ValueError):  # not Linux, or not allowed: as it is
        pass


_writer = _Writer()
atexit.register(_writer.stop)


def flush() -> None:
    """Every row announced so far has its vectors stored (or failed, for the backfill)."""
    _writer.flush()


class _Pending:
    """The rows one transaction wrote, handed over once it commits."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], set[int]] = defaultdict(set)
        self.flushed = False

    def __call__(self) -> None:
        self.flushed = True
        for (name, owner_id), ids in self.rows.items():
            _after_commit(named(name), owner_id, sorted(ids))


def _after_commit(corpus: Corpus, owner_id: int, ids: list[int]) -> None:
    mode = _write_mode()
    if mode == "off" or not ids:
        return
    if mode == "inline":
        try:
            tokens_rows(corpus, owner_id, ids)
        except Exception:  # the write is committed; the backfill stores the vectors
            log.exception("token vectors of %d %s rows not stored", len(ids), corpus.name)
        return
    _writer.submit(corpus, owner_id, ids)


def _record(
    corpus: Corpus, owner_id: int, upserted: list[int], removed: list[int], generation: int
) -> None:
    """Listener of `retrieval.events`: written rows get their vectors once committed."""
    if not upserted or not enabled():
        return
    conn = transaction.get_connection()
    if not conn.in_atomic_block:
        _after_commit(corpus, owner_id, upserted)
        return
    for _, callback, _ in conn.run_on_commit:
        if isinstance(callback, _Pending) and not callback.flushed:
            callback.rows[(corpus.name, owner_id)].update(upserted)
            return
    pending = _Pending()
    pending.rows[(corpus.name, owner_id)].update(upserted)
    transaction.on_commit(pending, robust=True)


def late_health() -> dict[str, Any]:
    """The "late" health check: the model's files (sha256) and this process's backlog."""
    if not enabled():
        return {"ok": True, "mode": "off"}
    report: dict[str, Any] = {"model": tokens.MODEL_ID, "writes": _write_mode()}
    try:
        tokens.verify_files()
    except tokens.TokensError as error:
        return {**report, "ok": False, "error": str(error)}
    return {**report, "ok": True, "queued": _writer.queued}


def install() -> None:
    """Called once from RetrievalConfig.ready() (retrieval.receivers)."""
    events.listen(_record)
    health.register("late", late_health)
