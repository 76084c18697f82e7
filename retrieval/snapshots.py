"""Per-person vector index snapshots on disk, so a cold process maps an index, not builds it.

A process that has not held an owner's index would read every vector of theirs from the
database and build a FAISS index (at 10k items most of a cold recall). Instead it maps
the owner's last snapshot (FAISS's IO_FLAG_MMAP_IFC: the codes stay in the file, read
through the page cache) and catches it up from the change log like any cached index
behind (retrieval/indexes.py): added or changed rows go to a small index beside the file
(retrieval/vector.py); the file's codes are copied into memory only when one of its rows
is removed or a filter is too wide to gather.

Files live under GAIA_INDEX_SNAPSHOT_DIR (default <GAIA_DATA_DIR>/indexes), one folder
per owner, so two people never share a file and an erase removes one folder:

    <dir>/<owner id>/<corpus>-<model>.json          which files hold generation g
    <dir>/<owner id>/<corpus>-<model>-g<g>-<n>.faiss the FAISS index (codes, quantizer)
    <dir>/<owner id>/<corpus>-<model>-g<g>-<n>.ids.npy row ids, -1 for a dead row

The .json is replaced last (a rename), so a reader sees either the old set or the new.
Beside them, `sample-<name>.json` holds a sample of the owner's newest rows that recall
reads before it searches (word counts, retrieval/termstats.py; common words and speakers,
retrieval/vocabulary.py), stamped with the generations it was read at: used only while
they are the database's.

Correctness never depends on them: a snapshot is used only at or below the owner's
current generation (never above: a restored database, a reused owner id) and is caught
up from the change log like any stale index; a missing, unreadable or inconsistent one
(sizes, checksum of the ids, model, dimension) is deleted and the index is built from the
database, which writes a fresh one. Snapshots are written off the request path, by one
background thread per process: after a process builds an index from the database, and
after it caught a loaded one up across REWRITE_AFTER generations or more. A change of
the embedding model leaves the old model's files unused (their names carry the model)
and the next write for that owner removes them. Erasing a person (privacy) deletes their
folder; `memory_reclaim` deletes every snapshot.

An erase also leaves a mark, in the database for every node and in each node's
`<dir>/.erased/<owner id>.json` once applied there (retrieval/snapshot_marks.py): the
owner's generations once it committed (or "gone" for a deleted account). Every process's
writer renames a new set into place only under a lock applying a mark takes too (an
flock on `<dir>/.erased/.lock`), and only when the set's generations are at or above the
mark: an index or a sample read before the erase (in this process or another) is
labelled below it, so it never lands on disk after the erase, and one read after it
holds no erased row.
"""

import json
import logging
import re
import threading
import zlib
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import count
from pathlib import Path

import faiss
import numpy as np
from django.conf import settings
from django.db import transaction

from core.server import metrics
from retrieval.snapshot_marks import after_erases, erase_everywhere, erase_lock, watch
from retrieval.vector import VectorIndex

log = logging.getLogger("gaia.retrieval")
FORMAT = 1
REWRITE_AFTER = 16  # generations a loaded snapshot was behind before it is written anew
_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gaia-snapshot")
_lock = threading.Lock()
_pending: dict[tuple[str, str, str], Future] = {}  # (folder, corpus, model) -> its write
_serial = count()
# How cold indexes came to be: "loaded" (a snapshot at the generation asked), "caught_up"
# (a snapshot behind, brought current), "missing", "refused" (unreadable, inconsistent or
# ahead of the database: deleted), "written".
counts: Counter[str] = Counter()


def enabled() -> bool:
    return bool(settings.GAIA_INDEX_SNAPSHOTS)


def owner_dir(owner_id: int) -> Path:
    return Path(settings.GAIA_INDEX_SNAPSHOT_DIR) / str(int(owner_id))


def _stem(corpus_name: str, model_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)[:60]
    return f"{corpus_name}-{slug}-{zlib.crc32(model_id.encode()):08x}"


def _count(what: str) -> None:
    with _lock:
        counts[what] += 1
    metrics.SNAPSHOTS.labels(what).inc()


def snapshot_load(
    corpus_name: str, owner_id: int, model_id: str, dim: int, generation: int
) -> VectorIndex | None:
    """The owner's snapshot as an index at its own generation (<= `generation`), or None
    (missing, or refused and deleted: the caller builds from the database)."""
    if not enabled():
        return None
    watch()  # this process applies other nodes' erases to the folder
    folder, stem = owner_dir(owner_id), _stem(corpus_name, model_id)
    try:
        meta = json.loads((folder / f"{stem}.json").read_text())
    except FileNotFoundError:
        _count("missing")
        return None
    except (OSError, ValueError):
        return _refuse(folder, stem)
    try:
        index = _read(folder, meta, corpus_name, owner_id, model_id, dim, generation)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
        log.info("index snapshot of owner %s refused: %s", owner_id, error)
        return _refuse(folder, stem)
    _count("loaded" if index.generation >= generation else "caught_up")
    return index


def _read(
    folder: Path, meta: dict, corpus: str, owner_id: int, model_id: str, dim: int, at: int
) -> VectorIndex:
    expected = (FORMAT, corpus, int(owner_id), model_id, dim)
    found = (meta["format"], meta["corpus"], meta["owner"], meta["model"], meta["dim"])
    if found != expected:
        raise ValueError(f"made for {found}")
    if not 0 <= meta["generation"] <= at:
        raise ValueError(f"generation {meta['generation']} is ahead of the database's {at}")
    files = folder / f"{meta['files']}.faiss", folder / f"{meta['files']}.ids.npy"
    if files[0].stat().st_size != meta["faiss_bytes"]:
        raise ValueError("the index file is not the size written")
    ids = np.load(files[1], allow_pickle=False)
    if ids.dtype != np.int64 or ids.ndim != 1 or zlib.crc32(ids.tobytes()) != meta["ids_crc"]:
        raise ValueError("the row ids are not the ones written")
    index = faiss.read_index(str(files[0]), faiss.IO_FLAG_MMAP_IFC)
    if not isinstance(index, faiss.IndexScalarQuantizer) or index.d != dim:
        raise ValueError("not an index of this dimension")
    if index.ntotal != len(ids) or index.metric_type != faiss.METRIC_INNER_PRODUCT:
        raise ValueError("the index does not match its row ids")
    return VectorIndex.restored(dim, index, ids, int(meta["generation"]))


def _refuse(folder: Path, stem: str) -> None:
    _count("refused")
    _remove(folder, stem)
    return None


def _remove(folder: Path, stem: str, keep: tuple[str, ...] = ()) -> None:
    """Delete the snapshot files whose names start with `stem` (but not with `keep`)."""
    for path in folder.glob(f"{stem}*"):
        if not (keep and path.name.startswith(keep)):
            path.unlink(missing_ok=True)


def snapshot_save_later(corpus_name: str, owner_id: int, model_id: str, index: VectorIndex) -> None:
    """Write the owner's snapshot from `index` in the background (one writer per process),
    once the surrounding transaction commits (rows it read but did not commit never reach
    a file); a write already waiting for the same index is not queued twice."""
    if not enabled():
        return
    watch()  # this process applies other nodes' erases to the folder
    folder = owner_dir(owner_id)  # now: the setting may change before the write
    # The folder names the owner and the snapshot root: a write waiting for another root's
    # folder (the setting changed meanwhile) writes there, not here.
    key = (str(folder), corpus_name, model_id)

    def submit() -> None:
        with _lock:
            waiting = _pending.get(key)
            if waiting is not None and not waiting.done():
                return
            _pending[key] = _writer.submit(_save, folder, corpus_name, model_id, index)

    transaction.on_commit(submit, robust=True)


def _save(folder: Path, corpus: str, model_id: str, index: VectorIndex) -> None:
    if not after_erases(folder, {corpus: index.generation}):  # checked again under the lock
        return
    blob, ids, generation = index.parts()
    owner_id, stem = int(folder.name), _stem(corpus, model_id)
    files = f"{stem}-g{generation}-{next(_serial)}"
    meta = {
        "format": FORMAT,
        "corpus": corpus,
        "owner": owner_id,
        "model": model_id,
        "dim": index.dim,
        "generation": generation,
        "files": files,
        "faiss_bytes": len(blob),
        "ids_crc": zlib.crc32(ids.tobytes()),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{files}.faiss").write_bytes(blob)
        np.save(folder / f"{files}.ids.npy", ids, allow_pickle=False)
        temporary = folder / f"{files}.json.tmp"
        temporary.write_text(json.dumps(meta))
        with erase_lock(folder.parent):  # not over an erase made after the rows were read
            if not after_erases(folder, {corpus: generation}):
                _remove(folder, files)
                return
            temporary.replace(folder / f"{stem}.json")
        _remove(folder, stem, keep=(f"{stem}.json", files))  # this model's older sets
        for other in folder.glob(f"{corpus}-*.json"):  # another model's: never read again
            if other.name != f"{stem}.json":
                _remove(folder, other.name[: -len(".json")])
    except OSError as error:  # a full or read-only disk: recall builds from the database
        log.warning("could not write the index snapshot of owner %s: %s", owner_id, error)
        _remove(folder, files)
        return
    _count("written")


def sample_load(owner_id: int, name: str, stamp: dict[str, int]) -> dict | None:
    """A sample of the owner's rows (word counts, vocabulary) saved at `stamp` (their
    generations), or None: a sample is a function of the rows, so it holds while they
    have not changed. A process that has not served the owner reads it instead of
    sampling their newest rows again."""
    if not enabled():
        return None
    watch()  # this process applies other nodes' erases to the folder
    path = owner_dir(owner_id) / f"sample-{name}.json"
    try:
        saved = json.loads(path.read_text())
        if saved["format"] == FORMAT and saved["owner"] == owner_id and saved["stamp"] == stamp:
            return saved["data"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        path.unlink(missing_ok=True)
    return None


def sample_save_later(owner_id: int, name: str, stamp: dict[str, int], data: dict) -> None:
    """Write the sample in the background (the index snapshots' writer), once committed."""
    if not enabled():
        return
    watch()  # this process applies other nodes' erases to the folder
    folder = owner_dir(owner_id)

    def submit() -> None:
        with _lock:
            _writer.submit(_save_sample, folder, name, stamp, data)

    transaction.on_commit(submit, robust=True)  # as snapshot_save_later


def _save_sample(folder: Path, name: str, stamp: dict[str, int], data: dict) -> None:
    if not after_erases(folder, stamp):  # checked again under the lock
        return
    saved = {"format": FORMAT, "owner": int(folder.name), "stamp": stamp, "data": data}
    temporary = folder / f"sample-{name}.json.{next(_serial)}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(saved))
        with erase_lock(folder.parent):
            if not after_erases(folder, stamp):
                temporary.unlink(missing_ok=True)
                return
            temporary.replace(folder / f"sample-{name}.json")
    except OSError as error:
        log.warning("could not write a sample of owner %s: %s", folder.name, error)
        temporary.unlink(missing_ok=True)


def snapshots_erase(owner_id: int, *, gone: bool = False) -> None:
    """Delete every snapshot and sample of the owner (all corpora and models) on every
    node, and mark the erase so that no process writes one read before it
    (retrieval/snapshot_marks.py). Called by privacy's erase and retention once they
    committed (their generations are read now), and for a deleted account (`gone`:
    nothing is written for its id again)."""
    erase_everywhere(int(owner_id), gone=gone)


def on_owner_deleted(sender: object, instance: object, **_: object) -> None:
    """A deleted account's snapshots go with it, and none is written for its id again."""
    snapshots_erase(instance.pk, gone=True)


def snapshots_erase_all() -> int:
    """Delete every snapshot of every owner (`memory_reclaim`); returns how many owners."""
    root = Path(settings.GAIA_INDEX_SNAPSHOT_DIR)
    owners = [p for p in root.iterdir() if p.is_dir() and p.name.isdigit()] if root.is_dir() else []
    for folder in owners:
        snapshots_erase(int(folder.name))
    return len(owners)


def flush() -> None:
    """Wait for the writes queued so far (tests, the benchmark)."""
    with _lock:
        waiting = list(_pending.values())
        _pending.clear()
        waiting.append(_writer.submit(lambda: None))  # behind every write queued so far
    for future in waiting:
        future.result()


def reset_counts() -> None:
    with _lock:
        counts.clear()
