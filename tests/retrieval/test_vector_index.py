"""The per-user FAISS index and the LRU cache of indexes."""

import numpy as np
import pytest

from retrieval import vector
from retrieval.index_cache import IndexCache
from retrieval.vector import VectorIndex


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def make(ids, generation=1) -> VectorIndex:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(ids), 4)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return VectorIndex(4, np.array(ids), vectors, generation)


def test_it_returns_the_nearest_ids_by_inner_product():
    index = VectorIndex(
        3, np.array([7, 8, 9]), np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0)]), 1
    )
    hits = index.search(unit(1, 0.1, 0), 2)
    assert [i for i, _ in hits] == [7, 9]
    assert hits[0][1] == pytest.approx(float(unit(1, 0.1, 0) @ unit(1, 0, 0)))


def test_removed_ids_never_come_back_and_replaced_ids_use_their_new_vector():
    index = VectorIndex(3, np.array([1, 2]), np.stack([unit(1, 0, 0), unit(0, 1, 0)]), 1)
    index.remove([1])
    assert [i for i, _ in index.search(unit(1, 0, 0), 5)] == [2]
    index.upsert([2], np.stack([unit(0, 0, 1)]))
    assert index.search(unit(0, 0, 1), 5) == [(2, pytest.approx(1.0))]
    assert index.size == 1


def test_removals_are_compacted_in_batches(monkeypatch):
    monkeypatch.setattr(vector, "COMPACT_MIN_DEAD", 3)
    index = make(range(100, 110))
    index.remove([100, 101])
    assert index._index.ntotal == 10  # only marked dead so far
    index.remove([102])
    assert index._index.ntotal == 7  # one compaction for the batch
    assert sorted(i for i, _ in index.search(unit(1, 1, 1, 1), 20)) == list(range(103, 110))


def test_it_searches_only_among_allowed_ids():
    index = make(range(1, 50))
    hits = index.search(unit(1, 0, 0, 0), 3, allowed=np.array([5, 17, 999]))
    assert sorted(i for i, _ in hits) == [5, 17]


def test_the_cache_evicts_the_least_recently_used_index_beyond_its_byte_budget():
    one = make(range(100))
    cache = IndexCache(budget_bytes=int(one.nbytes * 2.5))
    cache.get(("items", 1, "m"), 1, lambda: one)
    cache.get(("items", 2, "m"), 1, lambda: make(range(100)))
    cache.get(("items", 1, "m"), 1, lambda: pytest.fail("cached: no rebuild"))  # 1 is now recent
    cache.get(("items", 3, "m"), 1, lambda: make(range(100)))
    assert cache.peek(("items", 2, "m")) is None
    assert cache.peek(("items", 1, "m")) is one
    assert cache.nbytes <= cache.budget_bytes


def test_an_index_larger_than_the_whole_budget_is_used_but_not_kept():
    cache = IndexCache(budget_bytes=100)
    index = cache.get(("items", 1, "m"), 1, lambda: make(range(50)))
    assert index.size == 50
    assert len(cache) == 0


def test_a_newer_generation_rebuilds_the_index():
    cache = IndexCache(budget_bytes=10**9)
    first = cache.get(("items", 1, "m"), 1, lambda: make([1], 1))
    second = cache.get(("items", 1, "m"), 2, lambda: make([1, 2], 2))
    assert first is not second and second.size == 2


def test_changes_apply_in_place_only_to_an_index_that_saw_everything_before_them():
    cache = IndexCache(budget_bytes=10**9)
    index = cache.get(("items", 1, "m"), 5, lambda: make([1, 2], 5))
    assert cache.apply(
        ("items", 1, "m"),
        from_generation=5,
        to_generation=6,
        upserts={3: unit(1, 0, 0, 0)},
        removals=[1],
    )
    assert index.generation == 6 and 3 in index and 1 not in index
    assert not cache.apply(
        ("items", 1, "m"),
        from_generation=7,
        to_generation=8,
        upserts={4: unit(0, 1, 0, 0)},
        removals=[],
    )
    assert 4 not in index and index.generation == 6


def test_a_small_index_stores_half_floats_a_large_one_8_bit_codes_both_find_the_nearest(
    monkeypatch,
):
    monkeypatch.setattr(vector, "QUANTIZE_FROM", 50)
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(500, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    small = VectorIndex(16, np.arange(500)[:40], vectors[:40], 1)
    quantized = VectorIndex(16, np.arange(500), vectors, 1)
    # bytes per vector: half-precision floats (float32 would be 64), then 8-bit codes
    assert (small._index.code_size, quantized._index.code_size) == (32, 16)
    found = dict(small.search(vectors[5], 40))
    exact = vectors[:40] @ vectors[5]
    assert max(abs(found[i] - exact[i]) for i in range(40)) < 1e-3  # cosines barely move
    assert max(found, key=found.get) == 5
    for row in (3, 77, 499):
        assert quantized.search(vectors[row], 1)[0][0] == row
    assert [i for i, _ in quantized.search(vectors[7], 3, allowed=np.array([7, 8]))][0] == 7
    quantized.remove([77])
    assert quantized.search(vectors[77], 1)[0][0] != 77


def restored(index: VectorIndex) -> VectorIndex:
    """`index` as a process reads it back from its snapshot (codes, row ids, generation)."""
    stored, row_ids, generation = index.parts()
    faiss_index = vector.faiss.deserialize_index(np.frombuffer(stored, dtype=np.uint8))
    return VectorIndex.restored(index.dim, faiss_index, row_ids, generation)


@pytest.mark.parametrize("ids", [[], [1, 2]], ids=["empty", "two rows"])
def test_a_restored_index_answers_as_the_one_it_was_read_from_after_the_same_changes(ids):
    vectors = [unit(1, 0, 0), unit(0, 1, 0)][: len(ids)]
    built = VectorIndex(3, np.array(ids, dtype=np.int64), np.array(vectors).reshape(-1, 3), 1)
    again = restored(built)
    for index in (built, again):
        index.upsert([3, *ids[1:]], np.stack([unit(0, 0, 1), *[unit(1, 1, 1)] * len(ids[1:])]))
    assert again.mapped  # the new rows sit beside the restored codes
    for query in (unit(0.2, 0.1, 1), unit(1, 0.9, 0.8), unit(1, 0.1, 0.3)):  # no ties
        assert again.search(query, 5) == built.search(query, 5)
        allowed = np.array([3, *ids])
        assert again.search(query, 2, allowed=allowed) == built.search(query, 2, allowed=allowed)
    assert sorted(again.ids()) == sorted(built.ids()) and again.size == built.size
    assert restored(again).search(unit(0, 0, 1), 1)[0][0] == 3  # its snapshot holds them too
    again.remove([3])
    assert (
        not again.mapped
        and 3 not in again
        and 3 not in [hit[0] for hit in again.search(unit(0, 0, 1), 5)]
    )
