"""Bulk writes in short transactions, so no request holds the write lock for long.

SQLite has one write lock for the whole database: a transaction that writes thousands
of rows makes every other writer wait, and after the busy timeout fail with "database is
locked". Bulk work (batches, imports, erasure) therefore writes in chunks, each in its
own transaction, sized so that one takes about TARGET_SECONDS; between two chunks it
pauses briefly, so writers waiting in SQLite's busy handler (which sleeps up to 100 ms
between tries) get the lock before the next chunk takes it again.

Inside an outer transaction (a caller's `atomic`, a test) the chunks are savepoints of
it: the lock is held anyway, so there is no pause.

PostgreSQL locks rows, not the database: two transactions that lock the same rows in
opposite orders (an erase deleting a person's rows while a write folds into one of them)
deadlock, and the server ends one of them. The work of a transaction the server ended
that way (`lost_a_deadlock`) is tried again (`retrying`): the other transaction has gone
on meanwhile, so the same work succeeds.
"""

import logging
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from django.db import DatabaseError, connection, transaction

T = TypeVar("T")
R = TypeVar("R")

TARGET_SECONDS = 0.1
PAUSE_SECONDS = 0.1  # SQLite's busy handler polls at least every 100 ms
TRIES = 4  # a transaction the server ended to break a deadlock is tried this often in all
RETRY_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock detected, serialization failure

log = logging.getLogger(__name__)


def lost_a_deadlock(error: BaseException) -> bool:
    """Whether the database ended the transaction to break a deadlock or a serialization
    conflict (PostgreSQL): the same work, tried again, succeeds."""
    cause = error.__cause__ or error
    return getattr(cause, "sqlstate", None) in RETRY_SQLSTATES


def retrying(
    work: Callable[[], R], *, what: str, also: Callable[[DatabaseError], bool] | None = None
) -> R:
    """`work()` (its own transaction), tried again when the database ended it to break a
    deadlock, or for an error `also` says a second try mends; inside an outer transaction
    it runs once (the outer one is lost with it)."""
    for attempt in range(1, TRIES + 1):
        try:
            return work()
        except DatabaseError as error:
            again = lost_a_deadlock(error) or (also is not None and also(error))
            if connection.in_atomic_block or not again or attempt == TRIES:
                raise
            log.warning("%s: tried again after %s", what, error)
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")


class Sizer:
    """The size of the next chunk: it grows or shrinks so a chunk takes about TARGET_SECONDS.

    What is timed is the chunk's transaction, up to its commit: call `done()` as the last
    thing inside it. The work that runs after commit (embedding the rows just written,
    `transaction.on_commit`) holds no lock, and counted it shrank chunks to one row.
    """

    def __init__(self, first: int, most: int) -> None:
        self.size, self.most = max(1, min(first, most)), most
        self._began = 0.0

    def start(self) -> None:
        self._began = time.monotonic()

    def done(self) -> None:
        elapsed = max(time.monotonic() - self._began, 1e-3)
        scaled = int(self.size * min(2.0, TARGET_SECONDS / elapsed))
        self.size = max(1, min(self.most, scaled))


def pause() -> None:
    """Between two chunks: let waiting writers in (SQLite, outside any transaction)."""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        time.sleep(PAUSE_SECONDS)


def write_in_chunks(
    rows: Sequence[T], write: Callable[[list[T]], list[R]], *, first: int, most: int
) -> list[R]:
    """`write(chunk)` for successive chunks of `rows`, each in its own transaction, in order;
    returns what the calls returned, concatenated. A chunk holds at most `most` rows.

    Rows that fit in one chunk are one transaction: such a batch is stored whole or not
    at all (a process killed mid-batch leaves nothing of it), and its lock is short anyway.
    """
    if len(rows) <= most:
        with transaction.atomic():
            return list(write(list(rows)))
    out: list[R] = []
    sizer = Sizer(first, most)
    start = 0
    while start < len(rows):
        if start:
            pause()
        chunk = list(rows[start : start + sizer.size])
        sizer.start()
        with transaction.atomic():
            out.extend(write(chunk))
            sizer.done()
        start += len(chunk)
    return out


def repeat_in_chunks(
    step: Callable[[int], int],
    *,
    first: int,
    most: int,
    also: Callable[[DatabaseError], bool] | None = None,
) -> int:
    """Call `step(size)` in its own transaction until it returns 0 (nothing left);
    each call handles at most `size` rows and returns how many it did. Returns the total.
    A chunk is tried again as `retrying` says (`also`: errors a second try mends)."""
    total = 0
    sizer = Sizer(first, most)

    def one() -> int:
        sizer.start()
        with transaction.atomic():
            done = step(sizer.size)
            sizer.done()
        return done

    while True:
        done = retrying(one, what="a chunk", also=also)
        total += done
        if not done:
            return total
        pause()
