"""A full disk: a write answers 507 saying so, and health reports it.

SQLite says "database or disk is full" (SQLITE_FULL), PostgreSQL "could not extend file"
(SQLSTATE 53100, disk_full), a temporary file ENOSPC or EDQUOT. Raised by a request, any
of them used to be a generic 500 while health said "ok". Now the request is answered 507
Insufficient Storage (`core.server.middleware.StorageFullMiddleware`) and the moment is kept in
the cache for FULL_REMEMBERED_SECONDS, so the `storage` health check reports it (with
the Redis cache every process sees it); the check also measures the free space of the
disk the SQLite database is on, and is not ok below GAIA_MIN_FREE_BYTES. SQLite opening
its files on a full disk only says "disk I/O error": that counts as full when the disk
has less than GAIA_MIN_FREE_BYTES left.
"""

import errno
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection

FULL_REMEMBERED_SECONDS = 300
_CACHE_KEY = "gaia:storage-full-at"
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT}
_PG_DISK_FULL = "53100"


def _full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno in _NO_SPACE:
        return True
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None) or 0
        if code == sqlite3.SQLITE_FULL or "database or disk is full" in str(error):
            return True
        # Opening its WAL and shared-memory files on a full disk is "disk I/O error"
        # (SQLITE_IOERR, the errno is not kept): full when the disk has no room left.
        return code & 0xFF == sqlite3.SQLITE_IOERR and _free_bytes() < _min_free()
    return getattr(error, "sqlstate", None) == _PG_DISK_FULL  # psycopg's DiskFull


def is_storage_full(error: BaseException) -> bool:
    """Whether `error` (or an error it was raised from) says the disk is full."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if _full(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def storage_full_noted() -> None:
    """Remember that a write failed for lack of space (best effort: the cache may be down)."""
    try:
        cache.set(_CACHE_KEY, time.time(), FULL_REMEMBERED_SECONDS)
    except Exception:  # a report must not turn into another error
        pass


def _database_dir() -> Path | None:
    """The directory of the SQLite database file (None on other databases)."""
    if connection.vendor != "sqlite":
        return None
    name = str(settings.DATABASES["default"].get("NAME") or "")
    path = Path(name)
    return path.parent if path.is_absolute() else Path(settings.DATA_DIR)


def _free_bytes() -> int:
    """Free space where the SQLite database is (very large elsewhere: not measured)."""
    where = _database_dir()
    return shutil.disk_usage(where).free if where is not None else 2**63


def _min_free() -> int:
    return settings.GAIA_MIN_FREE_BYTES


def storage_check() -> dict[str, Any]:
    """Health: free space where SQLite writes, and whether a write found the disk full."""
    result: dict[str, Any] = {"ok": True}
    if _database_dir() is not None:
        free = _free_bytes()
        result.update(free_bytes=free, min_free_bytes=_min_free(), ok=free >= _min_free())
    try:
        full_at = cache.get(_CACHE_KEY)
    except Exception:  # the cache is down: the disk measure still answers
        full_at = None
    if full_at is not None:
        result["ok"] = False
        result["write_failed_disk_full_seconds_ago"] = round(time.time() - full_at, 1)
    return result
