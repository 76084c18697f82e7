"""Erase marks of the index snapshots, shared by every node through the database.

Each node keeps its snapshots on its own disk (retrieval/snapshots.py), so an erase
served by one node must reach the folders of all of them. It does through a row
(`SnapshotErase`: the owner, their generations once the erase committed, or "gone"):

- the node that serves the erase writes the row, then applies it to its own folder;
- every process that uses snapshots runs a watcher thread that reads the rows made since
  the folder last applied one, every GAIA_SNAPSHOT_ERASE_POLL seconds (default 2), and
  applies each: the owner's local mark `<dir>/.erased/<owner id>.json` is written and
  their folder deleted;
- `serve` applies what its node missed before it starts the web server, and the watcher's
  first round runs as soon as a process first touches a snapshot (a node that was down
  catches up at start).

Applying a mark takes the folder's lock (an flock on `<dir>/.erased/.lock`) that every
writer of the node takes to rename a snapshot into place, and writers refuse a set read
below the owner's local mark, so a snapshot read before the erase never lands after its
mark applied, and one that landed just before is deleted by it. What a folder applied is
recorded in `<dir>/.erased/applied.json`: the highest row id, and the rows of the last
WINDOW (an id taken just before another commits may become visible after it; applying a
row twice only deletes a snapshot that is written again).

The erase itself has committed by the time its row is written (the row carries the
generations it left). Should the database refuse the row then (away for a moment), the
erase still stands and answers as done: this node's folder goes at once under a mark
that lets no snapshot of the owner be written here, the failure is logged, and the row
is written later, by the watcher's next round or the next erase in this process.
"""

import fcntl
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from itertools import count
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, close_old_connections, transaction
from django.db.models import Q
from django.utils import timezone

from retrieval.generations import generations_read
from retrieval.models import SnapshotErase

log = logging.getLogger("gaia.retrieval")
WINDOW = timedelta(minutes=10)
_lock = threading.Lock()
_serial = count()
_watching = {"pid": 0}
_unmarked: dict[int, bool] = {}  # owner id -> gone: erases whose row is not written yet


def snapshot_root() -> Path:
    return Path(settings.GAIA_INDEX_SNAPSHOT_DIR)


def _marks(root: Path) -> Path:
    return root / ".erased"


@contextmanager
def erase_lock(root: Path) -> Iterator[None]:
    """Held by an erase's application and around every rename into place, in every process."""
    _marks(root).mkdir(parents=True, exist_ok=True)
    with _lock, open(_marks(root) / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def after_erases(folder: Path, generations: dict[str, int]) -> bool:
    """Whether rows read at `generations` (corpus -> generation) postdate every erase of
    the folder's owner applied here; final only under erase_lock."""
    try:
        mark = json.loads((_marks(folder.parent) / f"{folder.name}.json").read_text())
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False  # an unreadable mark: nothing is written for this owner
    if not isinstance(mark, dict) or mark.get("gone", True):
        return False
    floors = mark.get("generations", {})
    return all(at >= floors.get(corpus, 0) for corpus, at in generations.items())


def _write(path: Path, data: dict) -> None:
    temporary = path.with_name(f"{path.name}.{next(_serial)}.tmp")
    temporary.write_text(json.dumps(data))
    temporary.replace(path)


def _applied(root: Path) -> dict:
    try:
        state = json.loads((_marks(root) / "applied.json").read_text())
        recent = {int(pk): float(at) for pk, at in state["recent"].items()}
        return {"last": int(state["last"]), "recent": recent}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {"last": 0, "recent": {}}  # none yet, or unreadable: apply every row again


def _apply(root: Path, rows: list[SnapshotErase]) -> None:
    """Mark and delete each row's owner in this folder, and record the rows as applied."""
    now = timezone.now()
    with erase_lock(root):
        state = _applied(root)
        for row in rows:
            seen = row.pk in state["recent"]
            if seen or (row.pk <= state["last"] and row.made_at < now - WINDOW):
                continue
            mark = {"gone": True} if row.gone else {"gone": False, "generations": row.generations}
            _write(_marks(root) / f"{int(row.owner_id)}.json", mark)
            shutil.rmtree(root / str(int(row.owner_id)), ignore_errors=True)
            state["recent"][row.pk] = row.made_at.timestamp()
        state["last"] = max([state["last"], *(row.pk for row in rows)])
        floor = (now - WINDOW).timestamp()
        recent = {pk: at for pk, at in state["recent"].items() if at >= floor}
        _write(_marks(root) / "applied.json", {"last": state["last"], "recent": recent})


def erase_everywhere(owner_id: int, *, gone: bool) -> bool:
    """Record the owner's erase for every node (with their generations now, or "gone"),
    and apply it to this node's folder now. When the database refuses the row, the folder
    goes all the same and the row is written later (see the module docstring); returns
    whether it was written now."""
    marks_retry()
    try:
        row = _record(owner_id, gone=gone)
    except DatabaseError as error:
        log.error(
            "owner %s: erased, but the erase's mark for the other nodes could not be "
            "written (%s); it is retried every round of this process's watcher",
            owner_id, error,
        )  # fmt: skip
        with _lock:
            _unmarked[owner_id] = gone or _unmarked.get(owner_id, False)
        _hold_here(snapshot_root(), owner_id)
        watch()
        return False
    _apply(snapshot_root(), [row])
    watch()
    return True


def _record(owner_id: int, *, gone: bool) -> SnapshotErase:
    generations = {} if gone else generations_read(owner_id)
    with transaction.atomic():
        row = SnapshotErase.objects.create(owner_id=owner_id, gone=gone, generations=generations)
        SnapshotErase.objects.filter(owner_id=owner_id, pk__lt=row.pk).delete()
    return row


def _hold_here(root: Path, owner_id: int) -> None:
    """Delete the owner's folder under a mark that lets no snapshot of theirs be written
    here until their row is applied."""
    with erase_lock(root):
        _write(_marks(root) / f"{int(owner_id)}.json", {"gone": True})
        shutil.rmtree(root / str(int(owner_id)), ignore_errors=True)


def marks_retry() -> int:
    """Write the rows of this process's erases the database refused, and apply them here;
    returns how many are still not written."""
    with _lock:
        waiting = dict(_unmarked)
    for owner_id, gone in waiting.items():
        try:
            row = _record(owner_id, gone=gone)
        except DatabaseError:
            continue
        with _lock:
            if _unmarked.get(owner_id) == gone:
                del _unmarked[owner_id]
        _apply(snapshot_root(), [row])
        log.info("owner %s: the erase's mark for the other nodes is written", owner_id)
    with _lock:
        return len(_unmarked)


def erases_catch_up() -> int:
    """Apply to this node's folder the erases made since it last applied one (by any
    node); returns how many rows were read."""
    root = snapshot_root()
    with _lock:
        last = _applied(root)["last"]
    since = timezone.now() - WINDOW
    rows = list(SnapshotErase.objects.filter(Q(pk__gt=last) | Q(made_at__gte=since)).order_by("pk"))
    if rows:
        _apply(root, rows)
    return len(rows)


def watch() -> None:
    """Start this process's watcher thread once (after a fork too), if snapshots are on."""
    if _watching["pid"] == os.getpid():
        return
    if not settings.GAIA_INDEX_SNAPSHOTS or settings.GAIA_SNAPSHOT_ERASE_POLL <= 0:
        return
    with _lock:
        if _watching["pid"] == os.getpid():
            return
        _watching["pid"] = os.getpid()
    threading.Thread(target=_watch_loop, name="gaia-snapshot-erases", daemon=True).start()


def _watch_loop() -> None:
    while settings.GAIA_SNAPSHOT_ERASE_POLL > 0:
        close_old_connections()  # as a request would: a broken or aged connection is replaced
        try:
            marks_retry()
            erases_catch_up()
        except Exception as error:  # the database away for a moment: the next round retries
            log.warning("could not apply the snapshot erases of other nodes: %s", error)
        time.sleep(settings.GAIA_SNAPSHOT_ERASE_POLL)
    _watching["pid"] = 0
