"""A migrated SQLite database for tests that start real processes: `manage.py migrate` runs
once per test process into a template, and each test gets a copy of the file (migrating
from nothing took 5-40 s per test on a busy machine; copying takes milliseconds)."""

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
_template: Path | None = None


def _environ(data_dir: Path, database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    env.update(GAIA_DATA_DIR=str(data_dir), DATABASE_URL=f"sqlite:///{database}")
    return env


def _build() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="gaia-migrated-"))
    database = folder / "template.sqlite3"
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=_environ(folder, database), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(database) as conn:  # everything in the main file, none in a WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return database


def migrated_sqlite(target: Path) -> Path:
    """`target` becomes a copy of a freshly migrated database; returns it."""
    global _template
    with _lock:
        if _template is None or not _template.exists():
            _template = _build()
        shutil.copyfile(_template, target)
    return target
