"""SQLite writers take the write lock in turn: a file lock held from BEGIN to COMMIT/ROLLBACK,
by every process that opens the database, given back at once when a transaction ends."""

import fcntl
import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.db.utils import OperationalError

from core.sqlite_backend.base import WriterQueue

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]

# A process of the project on a file database that obeys its stdin, one command a line.
WRITER = textwrap.dedent(
    """
    import sys
    import django
    django.setup()
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS notes (text TEXT)")
    print("ready", flush=True)
    for command in sys.stdin:
        command = command.strip()
        if command == "begin":
            atomic = transaction.atomic()
            atomic.__enter__()
            connection.cursor().execute("INSERT INTO notes VALUES ('held')")
        elif command in ("commit", "rollback"):
            error = RuntimeError("undo") if command == "rollback" else None
            try:
                atomic.__exit__(type(error) if error else None, error, None)
            except RuntimeError:
                pass
        elif command == "write":
            with transaction.atomic():
                connection.cursor().execute("INSERT INTO notes VALUES ('queued')")
        elif command == "count":
            print(connection.cursor().execute("SELECT COUNT(*) FROM notes").fetchone()[0])
        print("done " + command, flush=True)
    """
)


def is_locked(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing gives back a lock this check may have taken
    return False


class Writer:
    def __init__(self, data_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}  # the embedded default
        env.update(GAIA_DATA_DIR=str(data_dir), DJANGO_SETTINGS_MODULE="gaia_site.settings")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRITER],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout.readline().strip() == "ready"

    def send(self, command: str) -> None:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def answer(self) -> list[str]:
        lines = []
        while not (line := self.proc.stdout.readline().strip()).startswith("done"):
            assert line or self.proc.poll() is None, "the writer died"
            lines.append(line)
        return lines

    def do(self, command: str) -> list[str]:
        self.send(command)
        return self.answer()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture
def writers(tmp_path):
    started: list[Writer] = []

    def start() -> Writer:
        started.append(Writer(tmp_path))
        return started[-1]

    yield start
    for writer in started:
        writer.proc.kill()
        writer.proc.wait()


def test_a_transaction_holds_the_queue_until_it_commits_or_rolls_back(tmp_path, writers):
    lock = tmp_path / "gaia.sqlite3.writelock"
    writer = writers()
    writer.do("begin")
    assert is_locked(lock)
    writer.do("commit")
    assert not is_locked(lock)
    writer.do("begin")
    assert is_locked(lock)
    writer.do("rollback")
    assert not is_locked(lock)
    assert writer.do("count") == ["1"]


def test_a_writer_of_another_process_waits_for_the_holder_then_goes_on(tmp_path, writers):
    holder, other = writers(), writers()
    holder.do("begin")
    other.send("write")  # waits in the queue, not in SQLite's busy handler
    holder.do("commit")
    assert other.answer() == []
    assert other.do("count") == ["2"]
    assert not is_locked(tmp_path / "gaia.sqlite3.writelock")


def test_waiting_longer_than_the_timeout_fails_like_sqlite(tmp_path):
    holder = WriterQueue(str(tmp_path / "db.writelock"), timeout=5)
    waiter = WriterQueue(str(tmp_path / "db.writelock"), timeout=0.05)
    holder.acquire()
    with pytest.raises(OperationalError, match="database is locked"):
        waiter.acquire()
    holder.release()
    waiter.acquire()  # free again: taken at once
    waiter.close()
    holder.close()


def _child_acquires(queue: WriterQueue, answers) -> None:
    try:
        queue.acquire()
        answers.put("acquired")
    except OperationalError:
        answers.put("locked")


def test_a_forked_process_does_not_share_its_parents_lock(tmp_path):
    """A descriptor inherited through a fork shares its lock: the child opens its own."""
    queue = WriterQueue(str(tmp_path / "db.writelock"), timeout=0.2)
    queue.acquire()
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_child_acquires, args=(queue, answers))
    child.start()
    child.join(30)
    assert answers.get(timeout=5) == "locked"
    queue.close()
