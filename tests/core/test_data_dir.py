"""Start-up with a data directory the server cannot write in stops with one clear line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]


def _start(data_dir: Path, **extra: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_")}
    environ.pop("DATABASE_URL", None)
    environ.update({"GAIA_DATA_DIR": str(data_dir), **extra})
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _refused(done: subprocess.CompletedProcess, data_dir: Path, cause: str) -> None:
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"Cannot start: GAIA_DATA_DIR='{data_dir}'") and cause in line


@pytest.fixture
def read_only_dir(tmp_path):
    """A read-only file system (a tmpfs mounted ro): needs root and may not mount here."""
    path = tmp_path / "ro"
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr!r}")
    yield path
    subprocess.run(["umount", str(path)], check=True)


def test_a_read_only_data_dir_stops_start_up_naming_it(read_only_dir):
    _refused(_start(read_only_dir), read_only_dir, "Read-only file system")


def test_a_data_dir_that_cannot_be_made_stops_start_up_naming_it(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    _refused(_start(blocker / "data"), blocker / "data", "Not a directory")


def test_a_read_only_data_dir_is_fine_when_nothing_is_kept_there(read_only_dir, tmp_path):
    done = _start(
        read_only_dir,
        DATABASE_URL="postgres://nobody@127.0.0.1:1/none",
        GAIA_SECRET_KEY="k" * 50,
        GAIA_STATIC_ROOT=str(tmp_path / "static"),
    )
    assert "Cannot start" not in done.stderr
    assert done.returncode == 0, done.stderr
