"""Per-person index snapshots: a process that never held an owner's index maps their
snapshot and catches it up; a bad one is refused and rebuilt; erasure deletes them.

A "process" is its own vector-index cache (`as_process`), as in test_catch_up.py; the
snapshot folder (one per test, tests/conftest.py) is shared like a data directory.
"""

import json
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conversations.services.recording import turn_append
from memory.corpus import ITEMS, KNOWLEDGE_FTS
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create, memory_forget
from privacy.retention import prune_user
from privacy.services import memory_erase, memory_erase_user
from retrieval import snapshots, termstats, vocabulary
from retrieval.caches import clear_process_caches
from retrieval.embedding.base import from_bytes
from retrieval.index_cache import IndexCache
from retrieval.indexes import build_index, index_for
from tests.recall_fixtures import as_process

pytestmark = pytest.mark.django_db
MODEL, DIM = "bge-small-en-v1.5-int8", 384
FACTS = [
    "Alice's gym is on Baker Street",
    "Alice plays the violin on Sundays",
    "Alice's sister Maria lives in Lisbon",
]


def index_in_new_process(user, commit):
    """The owner's items index as a process that never held it gets it (in autocommit,
    as a request: what it writes is written once the read commits)."""
    snapshots.reset_counts()
    with as_process(IndexCache(10**9)), commit():
        index = index_for(ITEMS, user.pk, MODEL, DIM)
    snapshots.flush()
    return index


def written(user, commit, texts=FACTS) -> list[int]:
    """Items of `user` written by a process that serves nothing else and keeps no snapshot
    (a write reads the owner's index for its near-duplicates, memory/dedup.py)."""
    with as_process(IndexCache(10**9)), override_settings(GAIA_INDEX_SNAPSHOTS=False), commit():
        return [memory_create(user=user, content=text).pk for text in texts]


def snapshotted(user, commit, texts=FACTS) -> list[int]:
    """Items of `user`, and their snapshot written by a process that built the index."""
    ids = written(user, commit, texts)
    index_in_new_process(user, commit)
    assert snapshots.counts["written"] == 1
    return ids


def files_of(user) -> list[Path]:
    folder = snapshots.owner_dir(user.pk)
    return sorted(folder.iterdir()) if folder.is_dir() else []


def index_files_of(user) -> list[Path]:
    return [p for p in files_of(user) if not p.name.startswith("sample-")]


def test_a_fresh_snapshot_is_mapped_and_no_vector_is_read_from_the_database(alice, commit):
    ids = snapshotted(alice, commit)
    with CaptureQueriesContext(connection) as queries:
        index = index_in_new_process(alice, commit)
    assert snapshots.counts["loaded"] == 1 and snapshots.counts["written"] == 0
    assert index.mapped and sorted(index.ids()) == sorted(ids)
    assert not [q for q in queries if "embedding" in q["sql"]]
    with as_process(IndexCache(10**9)):
        hits = recall(user=alice, query="which instrument does she play", top_k=1)
    assert [h.item.content for h in hits] == ["Alice plays the violin on Sundays"]


def test_a_stale_snapshot_is_caught_up_with_the_item_added_after_it(alice, commit):
    snapshotted(alice, commit)
    with commit():
        added = memory_create(user=alice, content="Alice adopted a grey cat named Pixel")
    index = index_in_new_process(alice, commit)
    assert snapshots.counts["caught_up"] == 1 and snapshots.counts["refused"] == 0
    assert added.pk in index
    assert index.mapped  # the added row sits beside the mapped file: nothing was copied
    with as_process(IndexCache(10**9)):
        hits = recall(user=alice, query="pet cat", top_k=1)
    assert [h.item.pk for h in hits] == [added.pk]


def test_rows_beside_a_mapped_snapshot_are_searched_filtered_written_and_folded_in(alice, commit):
    ids = snapshotted(alice, commit)
    with commit():
        added = memory_create(user=alice, content="Alice adopted a grey cat named Pixel")
    index = index_in_new_process(alice, commit)
    assert index.mapped and sorted(index.ids()) == sorted([*ids, added.pk])
    vector = from_bytes(KnowledgeItem.objects.get(pk=added.pk).embedding, DIM)
    assert index.search(vector, 1)[0][0] == added.pk
    among = index.search(vector, 4, allowed=np.array([ids[0], added.pk]))
    assert [hit[0] for hit in among] == [added.pk, ids[0]]
    stored, row_ids, _ = index.parts()  # a snapshot of it holds the added row too
    # (in the database's order: PostgreSQL moves a row its token vectors were stored in)
    assert sorted(row_ids.tolist()) == sorted([*ids, added.pk]) and stored
    index.remove([ids[0]])  # a removal copies the file's codes in, with the rows beside it
    assert not index.mapped and index.search(vector, 1)[0][0] == added.pk
    assert sorted(index.ids()) == sorted([*ids[1:], added.pk])


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _scramble_ids(path: Path) -> None:
    ids = np.load(path)
    np.save(path, ids[::-1] + 1000)


@pytest.mark.parametrize(
    "damage, suffix",
    [
        (_truncate, ".faiss"),
        (lambda p: p.write_bytes(b"not an index" * 50), ".faiss"),
        (_scramble_ids, ".ids.npy"),
        (lambda p: p.write_text("{not json"), ".json"),
        (lambda p: p.unlink(), ".faiss"),
    ],
    ids=["truncated", "garbage", "other ids", "bad meta", "file gone"],
)
def test_a_corrupt_snapshot_is_refused_the_index_built_from_the_database_and_rewritten(
    alice, commit, damage, suffix
):
    ids = snapshotted(alice, commit)
    damage(next(p for p in files_of(alice) if p.name.endswith(suffix)))
    index = index_in_new_process(alice, commit)
    assert snapshots.counts["refused"] == 1 and snapshots.counts["written"] == 1
    assert not index.mapped and sorted(index.ids()) == sorted(ids)
    again = index_in_new_process(alice, commit)
    assert snapshots.counts["loaded"] == 1 and sorted(again.ids()) == sorted(ids)


def test_a_snapshot_ahead_of_the_database_is_refused(alice, commit):
    """A restored database, or an owner id used again: the counter went back."""
    snapshotted(alice, commit)
    meta_path = next(p for p in files_of(alice) if p.name.endswith(".json"))
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "generation": meta["generation"] + 5}))
    index_in_new_process(alice, commit)
    assert snapshots.counts["refused"] == 1 and snapshots.counts["written"] == 1


def test_a_forgotten_or_erased_item_never_comes_back_from_a_snapshot(alice, commit):
    forgotten, erased, kept = snapshotted(alice, commit)
    with commit():
        memory_forget(user=alice, item_id=forgotten)
    index = index_in_new_process(alice, commit)
    assert snapshots.counts["caught_up"] == 1
    assert forgotten not in index and kept in index
    with commit():
        memory_erase(user=alice, item_id=erased)
    assert files_of(alice) == []  # the vector left the disk with the item
    index = index_in_new_process(alice, commit)
    assert erased not in index and forgotten not in index and kept in index
    with as_process(IndexCache(10**9)):
        hits = recall(user=alice, query="Alice's gym, her violin and her sister", top_k=5)
    assert kept in {h.item.pk for h in hits}
    assert not {forgotten, erased} & {h.item.pk for h in hits}


def test_erasing_a_person_deletes_their_snapshots_and_leaves_the_others(alice, bob, commit):
    snapshotted(alice, commit)
    snapshotted(bob, commit, ["Bob's gym is on Baker Street"])
    with commit():
        memory_erase_user(user=alice)
    assert files_of(alice) == [] and not snapshots.owner_dir(alice.pk).exists()
    assert len(index_files_of(bob)) == 3
    bob_pk = bob.pk
    bob.delete()  # an account deleted: its id may come back for someone else
    assert not snapshots.owner_dir(bob_pk).exists()


def test_an_index_or_sample_read_before_an_erase_never_lands_on_disk_after_it(alice, bob, commit):
    """Another process read Alice's rows (and word counts) before her erase and writes
    its snapshot after it: the erase's mark refuses it; one read after the erase is
    written as usual."""
    forgotten, erased, kept = snapshotted(alice, commit)
    stale = build_index(ITEMS, alice.pk, MODEL, DIM)
    stale_stamp = {ITEMS.name: stale.generation}
    with commit():
        memory_erase(user=alice, item_id=erased)
    assert files_of(alice) == []
    snapshots.reset_counts()
    with commit():  # queued once the erase committed, as another process would
        snapshots.snapshot_save_later(ITEMS.name, alice.pk, MODEL, stale)
        snapshots.sample_save_later(alice.pk, "terms-x", stale_stamp, {"counts": {"gym": 1}})
    snapshots.flush()
    assert files_of(alice) == [] and not snapshots.counts["written"]
    index = index_in_new_process(alice, commit)  # read after the erase: written
    assert snapshots.counts["written"] == 1 and erased not in index and kept in index
    assert len(index_files_of(alice)) == 3
    bob_id = snapshotted(bob, commit, ["Bob's sister lives in Oslo"])[0]
    bob_stale, bob_pk = build_index(ITEMS, bob.pk, MODEL, DIM), bob.pk
    bob.delete()
    with commit():
        snapshots.snapshot_save_later(ITEMS.name, bob_pk, MODEL, bob_stale)
    snapshots.flush()
    assert bob_id in bob_stale and not snapshots.owner_dir(bob_pk).exists()


def test_pruning_old_turns_deletes_the_snapshots_that_hold_them(alice, commit):
    snapshotted(alice, commit)
    with commit():
        turn_append(user=alice, session_id="s1", role="user", content="I moved to Porto")
    pruned = prune_user(user=alice, now=timezone.now() + timedelta(days=200))
    assert pruned["turns"] == 1 and files_of(alice) == []


def test_two_people_never_share_a_file_and_one_cannot_load_anothers(alice, bob, commit):
    snapshotted(alice, commit)
    snapshotted(bob, commit, ["Bob's sister lives in Oslo"])
    alice_files, bob_files = files_of(alice), files_of(bob)
    assert {p.parent for p in alice_files} == {snapshots.owner_dir(alice.pk)}
    assert {p.parent for p in bob_files} == {snapshots.owner_dir(bob.pk)}
    for path in alice_files:  # Bob's files copied over Alice's: refused, never used
        path.unlink()
    for path in bob_files:
        (snapshots.owner_dir(alice.pk) / path.name).write_bytes(path.read_bytes())
    index = index_in_new_process(alice, commit)
    assert snapshots.counts["refused"] == 1
    assert set(KnowledgeItem.objects.for_user(alice).values_list("pk", flat=True)) == set(
        index.ids()
    )


def test_another_embedding_models_snapshot_is_never_read_and_goes_on_the_next_write(alice, commit):
    snapshotted(alice, commit)
    old = index_files_of(alice)
    snapshots.reset_counts()
    assert snapshots.snapshot_load(ITEMS.name, alice.pk, "other-model", DIM, 10**6) is None
    assert snapshots.counts["missing"] == 1
    with as_process(IndexCache(10**9)), commit():
        index = index_for(ITEMS, alice.pk, "other-model", DIM)
    snapshots.flush()
    assert index.size == 0  # no vector of that model yet
    assert not set(old) & set(index_files_of(alice)) and len(index_files_of(alice)) == 3


def test_with_snapshots_off_nothing_is_written_or_read(alice, commit, settings):
    settings.GAIA_INDEX_SNAPSHOTS = False
    with commit():
        memory_create(user=alice, content=FACTS[0])
    index = index_in_new_process(alice, commit)
    assert index.size == 1 and files_of(alice) == [] and not snapshots.counts


def test_word_samples_are_read_back_while_the_rows_are_unchanged_and_redone_after_a_write(
    alice, commit
):
    snapshotted(alice, commit, [f"Alice's garden has {n} rose bushes" for n in range(25)])
    clear_process_caches()  # what the writes sampled, inside their transaction, is not saved
    with commit():
        recall(user=alice, query="roses in the garden", top_k=3)  # samples read and saved
    clear_process_caches()  # flushes the writes too
    with CaptureQueriesContext(connection) as queries:
        common = vocabulary.common_words(alice.pk)
        terms = termstats.owner_terms(KNOWLEDGE_FTS, alice.pk)
    assert "garden" in common and terms.frequency("roses") == 25
    assert not [q for q in queries if "ORDER BY" in q["sql"]]  # no row was sampled
    with commit():
        memory_create(user=alice, content="Alice planted tulips by the garden fence")
    clear_process_caches()
    with CaptureQueriesContext(connection) as queries:
        terms = termstats.owner_terms(KNOWLEDGE_FTS, alice.pk)
    assert terms.frequency("tulips") == 1 and [q for q in queries if "ORDER BY" in q["sql"]]


def test_an_index_read_inside_a_transaction_is_written_only_once_it_commits(alice, commit):
    written(alice, commit, FACTS[:1])
    with as_process(IndexCache(10**9)):  # the test's transaction never commits
        index_for(ITEMS, alice.pk, MODEL, DIM)
    snapshots.flush()
    assert index_files_of(alice) == []
