"""Careful file-system access: no symlink is followed out of a base directory, every
walk is bounded, and only metadata files are ever opened (never source files, mail or
page contents)."""

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

from discovery.scanners.base import ScanState

# Directories that hold dependencies, build output or caches, not a person's own work.
SKIP_DIRS = frozenset(
    {
        "node_modules", "__pycache__", "site-packages", "venv", "env", "target", "build",
        "dist", "out", "vendor", "Pods", "DerivedData", "bin", "obj", "coverage",
    }
)  # fmt: skip
MAX_METADATA_BYTES = 1024 * 1024
MAX_DATABASE_BYTES = 512 * 1024 * 1024


def inside(path: Path, base: Path) -> bool:
    """True when `path`, with every symlink resolved, is still within `base`."""
    try:
        return path.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):  # a symlink loop or an unreadable component
        return False


def metadata_file(path: Path, base: Path, limit: int = MAX_METADATA_BYTES) -> Path | None:
    """`path` if it is a regular file within `base` of at most `limit` bytes, else None."""
    try:
        if not path.is_file() or not inside(path, base):
            return None
        return path if path.stat().st_size <= limit else None
    except OSError:
        return None


def read_metadata(path: Path, base: Path, limit: int = MAX_METADATA_BYTES) -> str | None:
    """The text of a small metadata file within `base`; None when absent or unsafe."""
    checked = metadata_file(path, base, limit)
    if checked is None:
        return None
    try:
        return checked.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def subdirs(path: Path, state: ScanState, *, hidden: bool = False) -> list[Path]:
    """Real (non-symlink) subdirectories of `path`, sorted; [] when unreadable."""
    return _entries_where(
        path,
        state,
        lambda entry: (
            (hidden or not entry.name.startswith(".")) and entry.is_dir(follow_symlinks=False)
        ),
    )


def files(path: Path, state: ScanState) -> list[Path]:
    """Regular (non-symlink) files directly in `path`, sorted."""
    return _entries_where(path, state, lambda entry: entry.is_file(follow_symlinks=False))


def _entries_where(path: Path, state: ScanState, keep: Callable[[os.DirEntry], bool]) -> list[Path]:
    """The paths of the entries of `path` that `keep` accepts; an entry that cannot be
    inspected (OSError) is passed over."""
    found = []
    for entry in entries(path, state):
        try:
            if keep(entry):
                found.append(Path(entry.path))
        except OSError:
            continue
    return found


def entries(path: Path, state: ScanState) -> list[os.DirEntry]:
    """The entries of one directory, sorted by name, counted against the budget."""
    if state.expired():
        return []
    try:
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return []
    state.tick(len(entries))
    return entries


def walk_files(root: Path, state: ScanState, max_depth: int) -> Iterator[Path]:
    """File names below `root` (names only: nothing is opened), skipping hidden and
    dependency directories and never entering a symlinked directory."""
    stack = [(root, 0)]
    while stack and not state.expired():
        directory, depth = stack.pop()
        yield from files(directory, state)
        if depth < max_depth:
            children = [d for d in subdirs(directory, state) if d.name not in SKIP_DIRS]
            stack.extend((child, depth + 1) for child in reversed(children))


@contextmanager
def sqlite_copy(path: Path, base: Path, state: ScanState) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a private copy of a browser database.

    The browser keeps its own file locked while it runs; copying the file (and its
    write-ahead log) into a temporary directory means that lock is never touched and
    nothing is ever written next to the original.
    """
    source = metadata_file(path, base, MAX_DATABASE_BYTES)
    if source is None:
        raise FileNotFoundError(f"{path.name} is missing, too large or outside {base}")
    with TemporaryDirectory(prefix="gaia-discovery-") as tmp:
        copy = Path(tmp) / "copy.sqlite"
        shutil.copyfile(source, copy)
        wal = source.with_name(source.name + "-wal")
        if metadata_file(wal, base, MAX_DATABASE_BYTES):
            shutil.copyfile(wal, Path(tmp) / "copy.sqlite-wal")
        connection = sqlite3.connect(copy.as_uri() + "?mode=ro", uri=True)
        # A huge history must not outlast the scanner's time budget.
        connection.set_progress_handler(lambda: int(state.expired()), 10_000)
        try:
            yield connection
        finally:
            connection.close()
