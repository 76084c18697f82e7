"""How many rows this process has written per (table, owner): for samples that must not
outlive the data they describe (word counts, an owner's vocabulary).

A sample keeps `marks(tables, owner)` from when it was read; `outgrown` says whether this
process has since written more than a DRIFT share of the rows the sample read (at least
MIN_DRIFT rows). A write of unknown size counts as UNKNOWN rows, more than any sample
tolerates. Other processes' writes are not seen here: their samples expire by age.
"""

import threading
from collections.abc import Iterable

DRIFT = 0.1
MIN_DRIFT = 10
UNKNOWN = 1 << 40
MAX_KEYS = 65536
_lock = threading.Lock()
_totals: dict[tuple[str, int], int] = {}

Marks = tuple[tuple[str, int], ...]  # ((table, rows written when the sample was read), ...)


def note(table: str, owner_id: int, rows: int | None) -> None:
    """This process changed `rows` of the owner's rows in `table` (None: unknown, many)."""
    key = (table, owner_id)
    with _lock:
        if len(_totals) >= MAX_KEYS and key not in _totals:
            _totals.clear()  # marks taken before then read as nothing written since
        _totals[key] = _totals.get(key, 0) + (UNKNOWN if rows is None else rows)


def marks(tables: Iterable[str], owner_id: int) -> Marks:
    with _lock:
        return tuple((table, _totals.get((table, owner_id), 0)) for table in tables)


def outgrown(marks_then: Marks, owner_id: int, rows_read: int) -> bool:
    """Whether the owner's tables grew too much since `marks_then` for a sample of
    `rows_read` rows to stand for them."""
    with _lock:
        grown = sum(max(0, _totals.get((table, owner_id), 0) - mark) for table, mark in marks_then)
    return grown > max(MIN_DRIFT, DRIFT * rows_read)
