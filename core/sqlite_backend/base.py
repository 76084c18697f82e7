"""Django's SQLite backend, with writers waiting for the write lock in turn.

SQLite has one write lock per database. A writer that finds it taken sleeps in SQLite's
busy handler and tries again: after the first few tries every 100 ms. While one user's
import takes the lock chunk after chunk, another user's write then only gets in if one
of its tries happens to fall into the short gap between two chunks: a lottery, lost
for seconds now and then (write p99 near 2 s beside a 5 MB import).

So every transaction this backend starts (`BEGIN IMMEDIATE`, in every web and worker
process) first takes an exclusive lock on a file beside the database (`<db>.writelock`,
flock), and gives it back at COMMIT or ROLLBACK. A waiter tries it every few
milliseconds, so the next writer gets in as soon as the holder lets go. The lock is the
operating system's: a process killed while holding it loses it at once. Waiting longer
than the connection's `timeout` fails the way SQLite does ("database is locked").
Statements outside a transaction (autocommit) still meet SQLite's own busy handler.
An in-memory database is only ever one process's, and takes no file lock.
"""

import fcntl
import os
import time

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError

POLL_SECONDS = (0.0005, 0.001, 0.002)  # then every 2 ms


class WriterQueue:
    """An exclusive lock on one file, held for one transaction of one connection.

    The file is opened per process (a descriptor inherited through a fork would share
    its lock with the parent's)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path, self.timeout = path, timeout
        self.fd: int | None = None
        self.pid = 0
        self.held = False

    def _descriptor(self) -> int:
        if self.fd is None or self.pid != os.getpid():
            self.fd, self.pid, self.held = None, os.getpid(), False  # a parent's stays its own
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        return self.fd

    def acquire(self) -> None:
        fd = self._descriptor()
        deadline = time.monotonic() + self.timeout
        tries = 0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.held = True
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise OperationalError("database is locked") from None
                time.sleep(POLL_SECONDS[min(tries, len(POLL_SECONDS) - 1)])
                tries += 1

    def release(self) -> None:
        if self.held and self.fd is not None and self.pid == os.getpid():
            self.held = False
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        self.release()
        if self.fd is not None and self.pid == os.getpid():
            os.close(self.fd)
        self.fd = None


class DatabaseWrapper(base.DatabaseWrapper):
    _writers: WriterQueue | None = None

    def _writer_queue(self) -> WriterQueue | None:
        """The queue of this connection's database file (none for an in-memory one)."""
        if self.is_in_memory_db():
            return None
        path = f"{self.settings_dict['NAME']}.writelock"
        if self._writers is None or self._writers.path != path:
            if self._writers is not None:
                self._writers.close()
            timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
            self._writers = WriterQueue(path, timeout)
        return self._writers

    def _start_transaction_under_autocommit(self) -> None:
        writers = self._writer_queue()
        if writers is None:
            return super()._start_transaction_under_autocommit()
        writers.acquire()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            writers.release()
            raise

    def _commit(self) -> None:
        try:
            return super()._commit()
        finally:
            self._let_go()

    def _rollback(self) -> None:
        try:
            return super()._rollback()
        finally:
            self._let_go()

    def _close(self) -> None:
        try:
            return super()._close()
        finally:
            if self._writers is not None:
                self._writers.close()

    def _let_go(self) -> None:
        """Give the queue back once SQLite has ended the transaction (a COMMIT or ROLLBACK
        that failed leaves it open, and SQLite's lock held with it)."""
        open_still = self.connection is not None and self.connection.in_transaction
        if self._writers is not None and not open_still:
            self._writers.release()
