"""The per-process cache of vector indexes: LRU over (corpus, owner, model), bounded by bytes."""

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable

import numpy as np

from core.server import metrics
from retrieval.vector import VectorIndex

Key = tuple[str, int, str]  # (corpus name, owner id, model id)


CatchUp = Callable[[VectorIndex, int], bool]


class IndexCache:
    """LRU over (corpus, owner, model) indexes, bounded by a byte budget.

    `counts` says how each index came to be current: "builds" (not cached), "rebuilds"
    (cached but behind, and could not catch up), "catch_ups" (behind, brought current by
    the rows changed since), "in_place" (changed by a write of this process).
    """

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self.counts: Counter[str] = Counter()
        self._indexes: OrderedDict[Key, VectorIndex] = OrderedDict()
        self._build_locks: dict[Key, threading.Lock] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._indexes)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(index.nbytes for index in self._indexes.values())

    def peek(self, key: Key) -> VectorIndex | None:
        with self._lock:
            return self._indexes.get(key)

    def get(
        self,
        key: Key,
        generation: int,
        build: Callable[[], VectorIndex],
        catch_up: CatchUp | None = None,
    ) -> VectorIndex:
        """The cached index if it is at `generation` (or later); else the cached one
        brought there by `catch_up(index, generation)`; else a fresh one from `build()`."""
        index = self._touch(key, generation)
        if index is not None:
            metrics.index_cache("hit")
            return index
        with self._lock:
            build_lock = self._build_locks.setdefault(key, threading.Lock())
        with build_lock:  # one build per key at a time; the others wait and reuse it
            index = self._touch(key, generation)
            if index is not None:
                return index
            behind = self.peek(key)
            if behind is not None and catch_up is not None and catch_up(behind, generation):
                self._count("catch_ups")
                self._put(key, behind)
                return behind
            index = build()
            self._count("builds" if behind is None else "rebuilds")
            self._put(key, index)
        return index

    def _count(self, what: str) -> None:
        with self._lock:
            self.counts[what] += 1
        metrics.index_cache(what.removesuffix("s"))  # build, rebuild, catch_up

    def _touch(self, key: Key, generation: int) -> VectorIndex | None:
        with self._lock:
            index = self._indexes.get(key)
            if index is None or index.generation < generation:
                return None
            self._indexes.move_to_end(key)
            return index

    def _put(self, key: Key, index: VectorIndex) -> None:
        with self._lock:
            self._indexes.pop(key, None)
            if index.nbytes > self.budget_bytes:
                return  # larger than the whole budget: used for this search only
            self._indexes[key] = index
            metrics.INDEX_CACHE_BYTES.set(self._evict())

    def _evict(self) -> int:
        """Drop the least recently used past the budget; returns the bytes kept."""
        total = sum(index.nbytes for index in self._indexes.values())
        while total > self.budget_bytes and len(self._indexes) > 1:
            _, evicted = self._indexes.popitem(last=False)
            total -= evicted.nbytes
        return total

    def apply(
        self,
        key: Key,
        *,
        from_generation: int,
        to_generation: int,
        upserts: dict[int, np.ndarray],
        removals: list[int],
    ) -> bool:
        """Apply a committed change made in this process, if the index saw all before it.

        Returns False (nothing done) when the cached index is absent or behind: the next
        search compares generations and rebuilds.
        """
        index = self.peek(key)
        if index is None:
            return False
        with index._lock:
            if index.generation != from_generation:
                return False
            index._change(upserts, removals)
            index.generation = to_generation
        with self._lock:
            self.counts["in_place"] += 1
            self._evict()
        return True

    def discard(self, key: Key) -> None:
        with self._lock:
            self._indexes.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
            self.counts.clear()
