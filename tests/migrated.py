"""A migrated SQLite database for tests that start real processes: `manage.py migrate` runs
once per test run into a template (the processes of a parallel run share it, built under a
file lock), and each test gets a copy of the file (migrating from nothing took 5-40 s per
test on a busy machine; copying takes milliseconds)."""

import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_lock = threading.Lock()
_folder: Path | None = None


def _environ(data_dir: Path, database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    env.update(GAIA_DATA_DIR=str(data_dir), DATABASE_URL=f"sqlite:///{database}")
    return env


def _build(folder: Path, database: Path) -> None:
    """Migrate into a file beside `database`, then rename it there (whole or not at all)."""
    building = folder / "building.sqlite3"
    building.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=_environ(folder, building), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(building) as conn:  # everything in the main file, none in a WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    building.rename(database)


def _template_folder() -> Path:
    """Shared by the processes of one xdist run (its run id names it); else this process's."""
    global _folder
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run:
        folder = Path(tempfile.gettempdir()) / f"gaia-migrated-{run}"
        folder.mkdir(exist_ok=True)
        return folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="gaia-migrated-"))
    return _folder


def migrated_sqlite(target: Path) -> Path:
    """`target` becomes a copy of a freshly migrated database; returns it."""
    folder = _template_folder()
    template = folder / "template.sqlite3"
    with _lock, open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            _build(folder, template)
        shutil.copyfile(template, target)
    return target
