"""Vector stage: a per-user FAISS inner-product index per corpus, cached per process.

Each index is built lazily from the stored vectors, changed in place by writes made
in this process, and caught up when the owner's generation in the database moved (a
write in another process): only the rows changed since are read again, and it is
rebuilt only when that cannot be told. Removal only marks rows dead (FAISS removal
rescans the whole index); dead rows are skipped at search and compacted away in batches.
"""

import logging
import threading

logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # CPU-feature probing chatter

import faiss  # noqa: E402
import numpy as np  # noqa: E402

faiss.omp_set_num_threads(1)  # one query at a time: a second thread only adds overhead

COMPACT_MIN_DEAD = 256
GATHER_LIMIT = 8192  # filtered searches over at most this many rows use a direct product
_DICT_ENTRY_BYTES = 100  # rough cost of one id -> row entry
# A flat scan is bound by memory bandwidth: during a recall the index has just been pushed
# out of the CPU caches by the model run and the SQL, so its bytes come from memory.
# Below QUANTIZE_FROM vectors an index stores half-precision floats: half the bytes of
# float32 (a 10k scan inside a recall 0.5 ms instead of 1), cosines within about 1e-3
# of exact. From QUANTIZE_FROM, 8-bit codes: a quarter of float32, about 2x faster at 100k
# vectors; the top-10 agree with exact search ~99% of the time.
QUANTIZE_FROM = 20_000


def _new_faiss_index(dim: int, vectors: np.ndarray):
    if len(vectors) < QUANTIZE_FROM:
        return faiss.IndexScalarQuantizer(
            dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
        )
    index = faiss.IndexScalarQuantizer(
        dim, faiss.ScalarQuantizer.QT_8bit_uniform, faiss.METRIC_INNER_PRODUCT
    )
    # One range for all components, from the data plus headroom; later in-place additions
    # outside it are clipped slightly until the next rebuild.
    reach = float(np.abs(vectors).max()) * 1.2 or 1.0
    faiss.copy_array_to_vector(np.array([-reach, 2 * reach], dtype=np.float32), index.sq.trained)
    index.is_trained = True
    return index


def _empty_like(index):
    """An empty index that codes vectors as `index` does (same type and trained range)."""
    fresh = faiss.IndexScalarQuantizer(index.d, index.sq.qtype, index.metric_type)
    trained = faiss.vector_to_array(index.sq.trained)
    if len(trained):
        faiss.copy_array_to_vector(trained, fresh.sq.trained)
    fresh.is_trained = True
    return fresh


def _owned_copy(*parts):
    """One index owning the codes of `parts` in order, the first possibly a view of a
    mapped file (FAISS aborts the process on a change to a viewed vector)."""
    fresh = _empty_like(parts[0])
    for index in parts:
        if index is not None and index.ntotal:
            codes = faiss.rev_swig_ptr(index.codes.data(), index.ntotal * index.code_size)
            fresh.add_sa_codes(np.array(codes).reshape(index.ntotal, index.code_size))
    return fresh


class VectorIndex:
    """One owner's vectors of one corpus; all methods are thread-safe."""

    def __init__(self, dim: int, ids: np.ndarray, vectors: np.ndarray, generation: int) -> None:
        self.dim = dim
        self.generation = generation
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, dim)
        self._index = _new_faiss_index(dim, vectors)
        self._mapped = False
        self._tail = None  # rows added while `_index` is a mapped file, in memory
        self._row_ids = np.empty(0, dtype=np.int64)
        self._row_of: dict[int, int] | None = {}  # id -> row; None until a lookup needs it
        self._dead = 0
        self._lock = threading.Lock()
        self._append(np.asarray(ids, dtype=np.int64), vectors)

    @classmethod
    def restored(cls, dim: int, index, row_ids: np.ndarray, generation: int) -> "VectorIndex":
        """An index read back from a snapshot (retrieval/snapshots.py): `index` may view a
        memory-mapped file, copied into memory the first time a change needs it; a row id
        of -1 is a dead row."""
        restored = cls.__new__(cls)
        restored.dim, restored.generation = dim, generation
        restored._index, restored._mapped, restored._tail = index, True, None
        restored._row_ids = np.array(row_ids, dtype=np.int64)
        # The id -> row map is built when first looked up: at 100k rows it costs more than
        # the search a cold recall came for, and a plain search reads only the row ids.
        restored._row_of = None
        restored._dead = int(np.count_nonzero(restored._row_ids < 0))
        restored._lock = threading.Lock()
        return restored

    @property
    def mapped(self) -> bool:
        """Whether the vectors are still read from a snapshot's file (not yet copied)."""
        return self._mapped

    def _own(self) -> None:
        if self._mapped:
            self._index = _owned_copy(self._index, self._tail)
            self._mapped, self._tail = False, None

    @property
    def _rows(self) -> int:
        return self._index.ntotal + (self._tail.ntotal if self._tail is not None else 0)

    def parts(self) -> tuple[bytes, np.ndarray, int]:
        """(the FAISS index serialized, row ids with -1 for dead rows, generation), taken
        together: what a snapshot stores."""
        with self._lock:
            return (
                faiss.serialize_index(
                    self._index if self._tail is None else _owned_copy(self._index, self._tail)
                ).tobytes(),
                self._row_ids.copy(),
                self.generation,
            )

    def _rows_by_id(self) -> dict[int, int]:
        if self._row_of is None:
            live = np.flatnonzero(self._row_ids >= 0)
            self._row_of = dict(zip(self._row_ids[live].tolist(), live.tolist(), strict=True))
        return self._row_of

    def ids(self) -> list[int]:
        """The live row ids, in row order."""
        with self._lock:
            return self._row_ids[self._row_ids >= 0].tolist()

    @property
    def size(self) -> int:
        return len(self._row_ids) - self._dead

    @property
    def nbytes(self) -> int:
        per_row = self._index.code_size + 8  # stored code + row -> id
        mapped = len(self._row_of) if self._row_of is not None else 0
        return self._rows * per_row + mapped * _DICT_ENTRY_BYTES

    def __contains__(self, item_id: int) -> bool:
        with self._lock:
            return item_id in self._rows_by_id()

    def _append(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if not len(ids):
            return
        start = self._rows
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        if self._mapped:  # a caught-up snapshot: the new rows beside it, no copy of its codes
            if self._tail is None:
                self._tail = _empty_like(self._index)
            self._tail.add(vectors)
        else:
            self._index.add(vectors)
        self._row_ids = np.concatenate([self._row_ids, ids])
        if self._row_of is not None:
            for offset, item_id in enumerate(ids.tolist()):
                self._row_of[item_id] = start + offset

    def _kill(self, item_ids: list[int]) -> None:
        if self._row_of is None:  # one pass over the row ids, not a map of all of them
            rows = np.flatnonzero(np.isin(self._row_ids, np.asarray(item_ids, dtype=np.int64)))
            self._row_ids[rows] = -1
            self._dead += len(rows)
            return
        for item_id in item_ids:
            row = self._row_of.pop(item_id, None)
            if row is not None:
                self._row_ids[row] = -1
                self._dead += 1

    def upsert(self, ids: list[int], vectors: np.ndarray) -> None:
        """Add or replace vectors (a replaced row is marked dead, the new one appended)."""
        with self._lock:
            self._change(dict(zip(ids, vectors, strict=True)), [])

    def remove(self, ids: list[int]) -> None:
        with self._lock:
            self._change({}, ids)

    def advance(
        self,
        *,
        from_generation: int,
        to_generation: int,
        upserts: dict[int, np.ndarray],
        removals: list[int],
    ) -> bool:
        """Apply the rows changed after `from_generation`, as read at `to_generation` or later.

        Refused (False) when the index is older than `from_generation`. An index that moved
        on meanwhile is still changed if it is not past `to_generation`: the rows were read
        after that generation was, and any later change of them has a later generation, so
        the next catch-up reads them again.
        """
        with self._lock:
            if self.generation < from_generation:
                return False
            if self.generation < to_generation:
                self._change(upserts, removals)
                self.generation = to_generation
            return True

    def _change(self, upserts: dict[int, np.ndarray], removals: list[int]) -> None:
        if removals:  # a removed row's vector leaves the snapshot's file behind at once
            self._own()
        self._kill([*removals, *upserts])
        if upserts:
            ids = np.fromiter(upserts, dtype=np.int64, count=len(upserts))
            self._append(ids, np.stack(list(upserts.values())))
        self._maybe_compact()

    def _maybe_compact(self) -> None:
        if self._dead < max(COMPACT_MIN_DEAD, self._rows // 8):
            return
        dead_rows = np.flatnonzero(self._row_ids < 0)
        self._own()
        self._index.remove_ids(faiss.IDSelectorBatch(dead_rows.astype(np.int64)))
        self._row_ids = self._row_ids[self._row_ids >= 0]
        self._row_of = {item_id: row for row, item_id in enumerate(self._row_ids.tolist())}
        self._dead = 0

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Up to `k` (id, cosine) best first; with `allowed`, only among those ids."""
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        with self._lock:
            if allowed is not None:
                return self._search_among(query, k, allowed)
            want = min(self._rows, k + self._dead)
            if want <= 0:
                return []
            scores, rows = self._scan(query, want)
            hits = [
                (int(self._row_ids[row]), float(score))
                for score, row in zip(scores, rows, strict=True)
                if row >= 0 and self._row_ids[row] >= 0
            ]
        return hits[:k]

    def _scan(self, query: np.ndarray, want: int) -> tuple[np.ndarray, np.ndarray]:
        """The best `want` (scores, rows) over the index and the rows beside it."""
        if self._tail is None or not self._tail.ntotal:
            scores, rows = self._index.search(query, want)
            return scores[0], rows[0]
        more, tail_rows = self._tail.search(query, min(want, self._tail.ntotal))
        if not self._index.ntotal:  # a snapshot of nobody's rows, caught up
            return more[0], tail_rows[0]
        scores, rows = self._index.search(query, min(want, self._index.ntotal))
        tail_rows = np.where(tail_rows[0] >= 0, tail_rows[0] + self._index.ntotal, -1)
        scores, rows = np.concatenate([scores[0], more[0]]), np.concatenate([rows[0], tail_rows])
        best = np.argsort(-scores, kind="stable")[:want]
        return scores[best], rows[best]

    def _codes_of(self, rows: np.ndarray) -> np.ndarray:
        """The (decoded) vectors of `rows`, which may lie in the index or beside it."""
        if self._tail is None:
            return self._index.reconstruct_batch(rows)
        base = self._index.ntotal
        out = np.empty((len(rows), self.dim), dtype=np.float32)
        inside = rows < base
        if inside.any():
            out[inside] = self._index.reconstruct_batch(rows[inside])
        if (~inside).any():
            out[~inside] = self._tail.reconstruct_batch(rows[~inside] - base)
        return out

    def _search_among(self, query: np.ndarray, k: int, allowed: np.ndarray) -> list:
        if self._row_of is None and len(allowed) <= GATHER_LIMIT:  # one pass, no id map
            rows = np.flatnonzero(np.isin(self._row_ids, allowed.astype(np.int64)))
        else:
            row_of = self._rows_by_id()
            rows = np.fromiter(
                (row_of.get(i, -1) for i in allowed.tolist()), dtype=np.int64, count=len(allowed)
            )
            rows = rows[rows >= 0]
        if not len(rows) or k <= 0:
            return []
        if len(rows) <= GATHER_LIMIT:
            scores = self._codes_of(rows) @ query[0]
            top = np.argsort(-scores, kind="stable")[:k]
            return [(int(self._row_ids[rows[i]]), float(scores[i])) for i in top]
        self._own()  # a filter this wide searches one index
        params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(rows))
        scores, found = self._index.search(query, min(k, len(rows)), params=params)
        return [
            (int(self._row_ids[row]), float(score))
            for score, row in zip(scores[0], found[0], strict=True)
            if row >= 0
        ]
