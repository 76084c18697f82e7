"""How many rows this process has written per (table, owner): for samples that must not
outlive the data they describe (word counts, an owner's vocabulary).

A sample keeps `mark(table, owner)` from when it was read; `since(table, owner, that mark)`
is how many rows were written after it. A write of unknown size counts as UNKNOWN rows,
more than any sample tolerates.
"""

import threading

UNKNOWN = 1 << 40
_lock = threading.Lock()
_totals: dict[tuple[str, int], int] = {}
MAX_KEYS = 65536


def note(table: str, owner_id: int, rows: int | None) -> None:
    """This process changed `rows` of the owner's rows in `table` (None: unknown, many)."""
    key = (table, owner_id)
    with _lock:
        if len(_totals) >= MAX_KEYS and key not in _totals:
            _totals.clear()  # marks taken before read as 0 written: samples then expire by age
        _totals[key] = _totals.get(key, 0) + (UNKNOWN if rows is None else rows)


def mark(table: str, owner_id: int) -> int:
    with _lock:
        return _totals.get((table, owner_id), 0)


def since(table: str, owner_id: int, marked: int) -> int:
    """Rows written after `marked` was taken (never negative)."""
    return max(0, mark(table, owner_id) - marked)


def clear() -> None:
    with _lock:
        _totals.clear()
