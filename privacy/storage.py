"""After an erase, the bytes go too: full-text index segments and the SQLite WAL.

SQLite runs with `PRAGMA secure_delete=ON` on every connection (settings' init_command),
so deleted rows and freed pages are overwritten with zeros. Two places can still hold
erased text afterwards:

- FTS5 segments: deleting a row only appends a delete marker; the tokens stay in older
  segments until they are merged. `fulltext_optimize` (retrieval) merges each index into
  a single segment ('optimize'); the pages of the old segments are freed, hence zeroed.
- The write-ahead log: old page images stay in the -wal file until a checkpoint copies
  the new pages back and the log is truncated. `wal_checkpoint` does a TRUNCATE
  checkpoint with a short busy timeout: when another connection is reading at that
  moment it cannot finish, and the old frames leave at the next successful checkpoint.

PostgreSQL keeps the tsvector in the row itself, so deleting the row removes it from
every search at once; the dead tuple's bytes stay in the files until an operator runs
`memory_reclaim` (VACUUM FULL, see `reclaim`).
"""

import logging

from django.db import connection, transaction

from retrieval.fulltext_upkeep import fulltext_optimize

log = logging.getLogger("gaia.erasure")
CHECKPOINT_BUSY_MS = 2000


def wal_checkpoint() -> tuple[int, int, int] | None:
    """TRUNCATE checkpoint of the SQLite WAL, outside any transaction; best effort.

    Returns SQLite's (busy, log frames, checkpointed frames), or None when not SQLite
    or inside a transaction (it runs again after commit, see `purge_after_commit`).
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return None
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        previous = cursor.fetchone()[0]
        # Waiting for readers blocks writers: never for long on behalf of a cleanup.
        cursor.execute(f"PRAGMA busy_timeout = {CHECKPOINT_BUSY_MS}")
        try:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            busy, frames, done = cursor.fetchone()
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {int(previous)}")
    if busy:
        log.info("WAL checkpoint after an erase was busy; the next checkpoint completes it")
    return busy, frames, done


def purge_after_commit() -> None:
    """Optimize the full-text indexes now (inside the erase's transaction) and
    checkpoint the WAL once that transaction has committed.

    Call it after the last row is deleted: the merge drops a row's words only when the
    delete marker is already there (merged before, the words stay in the new segment)."""
    fulltext_optimize()
    transaction.on_commit(_checkpoint_quietly)


def _checkpoint_quietly() -> None:
    try:
        wal_checkpoint()
    except Exception:  # a cleanup must never turn a committed erase into an error
        log.exception("WAL checkpoint after an erase failed")
