"""SQLite: erased text is not in the database file or its WAL afterwards, and every
connection runs with secure_delete (settings' init_command)."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection, connections

from tests.migrated import migrated_sqlite

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]


def _probe(tmp_path, *args: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_")}
    environ.pop("DATABASE_URL", None)  # this is about SQLite files, whatever the suite runs on
    environ.update({"GAIA_DATA_DIR": str(tmp_path), "GAIA_LOG_LEVEL": "WARNING"})
    migrated_sqlite(tmp_path / "gaia.sqlite3")  # the probe's migrate has nothing left to do
    done = subprocess.run(
        [sys.executable, "-m", "tests.security.sqlite_bytes_probe", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_erased_text_leaves_the_sqlite_file_and_its_wal(tmp_path):
    result = _probe(tmp_path)
    assert result["pragmas"]["secure_delete"] == 1
    assert result["pragmas"]["journal_mode"] == "wal"
    assert result["pragmas"]["mmap_size"] == 256 * 1024 * 1024  # reads through a memory map
    assert result["pragmas"]["checkpoint"][0] == 0  # not busy: the WAL was emptied
    assert result["before"] == {"item": True, "carol": True, "bob": True}  # the scan works
    assert result["db"] == {"item": False, "carol": False, "bob": True}
    assert result["wal"] == {"item": False, "carol": False, "bob": False}


def test_erasing_one_item_alone_leaves_none_of_its_words_in_the_sqlite_file(tmp_path):
    """The full-text index is merged after the row is deleted, not before (a merge before
    the delete leaves the words in the merged segment behind a delete marker)."""
    result = _probe(tmp_path, "--item-only")
    assert result["before"]["item"] is True
    assert result["db"] == {"item": False, "carol": True, "bob": True}
    assert result["wal"]["item"] is False


def _pragmas(conn) -> tuple[int, int]:
    with conn.cursor() as cursor:
        cursor.execute("PRAGMA secure_delete")
        secure = cursor.fetchone()[0]
        cursor.execute("PRAGMA synchronous")
        return secure, cursor.fetchone()[0]


@pytest.mark.django_db
def test_every_sqlite_connection_runs_the_init_command_with_secure_delete(settings):
    if connection.vendor != "sqlite":
        pytest.skip("secure_delete is a SQLite setting (this run uses PostgreSQL)")
    assert "PRAGMA secure_delete=ON" in settings.DATABASES["default"]["OPTIONS"]["init_command"]
    # synchronous=NORMAL (1, the default is FULL, 2) shows the init command ran on it
    assert _pragmas(connection) == (1, 1)
    seen = []

    def other_thread() -> None:  # Django opens a new connection per thread
        seen.append(_pragmas(connections["default"]))
        connections["default"].close()

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert seen == [(1, 1)]
