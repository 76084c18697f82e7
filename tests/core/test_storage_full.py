"""A full disk: a write answers 507 saying so, and health stops saying "ok"."""

import errno
import sqlite3

import pytest
from django.core.cache import cache
from django.db import OperationalError, connection
from psycopg import errors as pg_errors

from core.server.storage_full import is_storage_full
from memory.models import KnowledgeItem


@pytest.fixture
def no_full_disk_remembered():
    cache.delete("gaia:storage-full-at")
    yield
    cache.delete("gaia:storage-full-at")


@pytest.fixture
def full_sqlite_file():
    """SQLite with no page left to grow into: its next write needing one fails with
    SQLITE_FULL, "database or disk is full", as on a disk with no space."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's page limit stands in for a full disk")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM")  # no free pages left inside the file either
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute(f"PRAGMA max_page_count = {pages}")
    yield
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA max_page_count = 4294967294")


def _storage(api) -> tuple[int, dict]:
    response = api.get("/api/v1/health/")
    return response.status_code, response.json()


@pytest.mark.django_db(transaction=True)  # SQLITE_FULL may roll back the whole transaction
def test_a_write_on_a_full_disk_answers_507_and_health_reports_it(
    alice, alice_api, no_full_disk_remembered, request
):
    assert _storage(alice_api)[1]["checks"]["storage"]["ok"] is True
    request.getfixturevalue("full_sqlite_file")

    notes = [
        {"content": f"Trip note {n}: " + " ".join(f"place{n}x{k}" for k in range(180))}
        for n in range(20)
    ]  # about 40 pages of text, indexes and vectors: more than the file may grow by (0)
    response = alice_api.post("/api/v1/memories/", notes, format="json")

    assert response.status_code == 507
    error = response.json()["error"]
    assert error["code"] == "storage_full" and "disk is full" in error["message"]
    assert not KnowledgeItem.objects.filter(owner=alice).exists()
    status, body = _storage(alice_api)
    assert status == 200 and body["status"] != "ok"  # reads still work: degraded
    storage = body["checks"]["storage"]
    assert storage["ok"] is False and "write_failed_disk_full_seconds_ago" in storage


@pytest.mark.django_db
def test_health_reports_too_little_free_space_where_sqlite_writes(
    alice_api, settings, no_full_disk_remembered
):
    if connection.vendor != "sqlite":
        pytest.skip("the free space measured is the SQLite database's disk")
    settings.GAIA_MIN_FREE_BYTES = 2**62  # more than any disk has
    status, body = _storage(alice_api)
    assert status == 200 and body["status"] == "degraded"
    storage = body["checks"]["storage"]
    assert storage["ok"] is False and 0 < storage["free_bytes"] < storage["min_free_bytes"]


def test_every_kind_of_full_disk_is_recognised_and_nothing_else():
    sqlite_full = sqlite3.OperationalError("database or disk is full")
    wrapped = OperationalError("database or disk is full")
    wrapped.__cause__ = sqlite_full
    pg_full = OperationalError("could not extend file")
    pg_full.__cause__ = pg_errors.DiskFull("could not extend file: No space left on device")
    assert is_storage_full(wrapped)
    assert is_storage_full(pg_full)
    assert is_storage_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_storage_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert not is_storage_full(OperationalError("database is locked"))
    assert not is_storage_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_storage_full(ValueError("disk is full"))


@pytest.mark.django_db
def test_sqlites_disk_io_error_counts_as_full_only_on_a_disk_with_no_room(settings):
    """Opening the WAL on a full disk is all SQLite can say about it (as seen on a full
    tmpfs): "disk I/O error", with no errno."""
    if connection.vendor != "sqlite":
        pytest.skip("a SQLite error")
    io_error = sqlite3.OperationalError("disk I/O error")
    io_error.sqlite_errorcode = sqlite3.SQLITE_IOERR_SHMSIZE
    settings.GAIA_MIN_FREE_BYTES = 1
    assert not is_storage_full(io_error)  # room left: a real I/O error, a 500
    settings.GAIA_MIN_FREE_BYTES = 2**62
    assert is_storage_full(io_error)
