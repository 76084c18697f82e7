"""Erases reach every node's snapshot folder (retrieval/snapshot_marks.py).

A "node" here is a snapshot folder of its own and its own vector-index cache; both nodes
share the test's database, as web nodes share PostgreSQL. The watcher thread's rounds
are `erases_catch_up()` calls (tests/system/test_two_nodes.py runs real nodes).
"""

import json
import threading
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.db import OperationalError
from django.utils import timezone

from memory.corpus import ITEMS
from memory.services import memory_create
from privacy.services import memory_erase, memory_erase_user
from retrieval import snapshots
from retrieval.index_cache import IndexCache
from retrieval.indexes import build_index, index_for
from retrieval.models import SnapshotErase
from retrieval.snapshot_marks import erases_catch_up, marks_retry
from tests.recall_fixtures import as_process

pytestmark = pytest.mark.django_db
MODEL, DIM = "bge-small-en-v1.5-int8", 384
FACTS = [
    "Alice's gym is on Baker Street",
    "Alice plays the violin on Sundays",
    "Alice's sister Maria lives in Lisbon",
]


@pytest.fixture
def node(settings, tmp_path):
    """`with node("b"): ...` runs as the node whose snapshot folder is `<tmp>/b`."""

    @contextmanager
    def on(name: str):
        before = settings.GAIA_INDEX_SNAPSHOT_DIR
        settings.GAIA_INDEX_SNAPSHOT_DIR = str(tmp_path / name / "indexes")
        try:
            with as_process(IndexCache(10**9)):
                yield Path(settings.GAIA_INDEX_SNAPSHOT_DIR)
        finally:
            snapshots.flush()
            settings.GAIA_INDEX_SNAPSHOT_DIR = before

    return on


def snapshot_ids(folder: Path) -> set[int]:
    """Every row id in the folder's index snapshots (an erased row must be in none)."""
    ids: set[int] = set()
    for path in folder.rglob("*.ids.npy"):
        ids |= {int(i) for i in np.load(path, allow_pickle=False)}
    return ids


def written_on(node, name, user, commit) -> Path:
    with node(name) as root, commit():
        index_for(ITEMS, user.pk, MODEL, DIM)
    assert list((root / str(user.pk)).glob("*.faiss"))
    return root


def test_an_item_erased_on_one_node_leaves_the_other_nodes_folder_at_its_next_round(
    alice, commit, node
):
    with commit():
        ids = [memory_create(user=alice, content=text).pk for text in FACTS]
    b = written_on(node, "b", alice, commit)
    assert set(ids) <= snapshot_ids(b)
    with node("a"), commit():
        memory_erase(user=alice, item_id=ids[0])
    assert ids[0] in snapshot_ids(b)  # node b has not looked yet
    with node("b"):
        assert erases_catch_up() == 1
    assert not (b / str(alice.pk)).exists() and ids[0] not in snapshot_ids(b)
    b = written_on(node, "b", alice, commit)  # read after the erase: written as usual
    assert snapshot_ids(b) == set(ids[1:])
    with node("b"):
        erases_catch_up()  # an erase applied once is not applied again
    assert snapshot_ids(b) == set(ids[1:])


def test_a_snapshot_read_before_an_erase_elsewhere_is_never_written_after_it(alice, commit, node):
    with commit():
        ids = [memory_create(user=alice, content=text).pk for text in FACTS]
    stale = build_index(ITEMS, alice.pk, MODEL, DIM)  # node b read the rows before the erase
    with node("a"), commit():
        memory_erase(user=alice, item_id=ids[1])
    with node("b") as b:
        erases_catch_up()
        with commit():
            snapshots.snapshot_save_later(ITEMS.name, alice.pk, MODEL, stale)
    assert ids[1] in stale and not (b / str(alice.pk)).exists()


def test_a_person_erased_on_one_node_leaves_no_file_of_theirs_on_another(alice, bob, commit, node):
    with commit():
        memory_create(user=alice, content=FACTS[0])
        memory_create(user=bob, content="Bob's sister lives in Oslo")
    written_on(node, "b", alice, commit)
    b = written_on(node, "b", bob, commit)
    with node("a"), commit():
        memory_erase_user(user=alice)
    with node("b"):
        erases_catch_up()
    assert not (b / str(alice.pk)).exists() and list((b / str(bob.pk)).glob("*.faiss"))
    mark = json.loads((b / ".erased" / f"{alice.pk}.json").read_text())
    assert mark["gone"] is False and mark["generations"][ITEMS.name] >= 1


def test_a_node_that_was_down_applies_every_erase_it_missed_once_it_starts(
    alice, bob, commit, node
):
    with commit():
        memory_create(user=alice, content=FACTS[0])
        memory_create(user=bob, content="Bob's sister lives in Oslo")
    written_on(node, "b", alice, commit)
    b = written_on(node, "b", bob, commit)
    bob_pk = bob.pk
    with node("a"), commit():  # node b is down meanwhile
        memory_erase_user(user=alice)
        bob.delete()
    SnapshotErase.objects.update(made_at=timezone.now() - timedelta(days=3))  # long ago
    with node("b"):
        assert erases_catch_up() == 2
    assert not (b / str(alice.pk)).exists() and not (b / str(bob_pk)).exists()
    assert json.loads((b / ".erased" / f"{bob_pk}.json").read_text()) == {"gone": True}


def test_only_the_latest_erase_of_a_person_is_kept(alice, commit, node):
    with commit():
        ids = [memory_create(user=alice, content=text).pk for text in FACTS]
    with node("a"):
        for pk in ids[:2]:
            with commit():
                memory_erase(user=alice, item_id=pk)
    assert SnapshotErase.objects.filter(owner_id=alice.pk).count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_erase_whose_mark_the_database_refuses_still_answers_done_and_marks_it_later(
    alice, alice_api, node, monkeypatch, caplog
):
    """The erase commits before its mark is written (after commit): a database that
    refuses the mark then (a lock, a restart) must not turn a done erase into a 500."""
    memory_create(user=alice, content=FACTS[0])
    memory_create(user=alice, content=FACTS[1])
    with node("a") as a:
        index_for(ITEMS, alice.pk, MODEL, DIM)
        snapshots.flush()
        assert list((a / str(alice.pk)).glob("*.faiss"))

        def refused(**_: object) -> None:
            raise OperationalError("could not connect to server: Connection refused")

        monkeypatch.setattr(SnapshotErase.objects, "create", refused)
        erased = alice_api.post("/api/v1/account/erase/", {"confirm": True}, format="json")
        assert erased.status_code == 200, erased.content
        assert "could not be written" in caplog.text
        assert not (a / str(alice.pk)).exists()  # this node's files went at once
        assert json.loads((a / ".erased" / f"{alice.pk}.json").read_text()) == {"gone": True}
        assert not SnapshotErase.objects.exists()

        monkeypatch.undo()  # the database is back: the watcher's next round writes it
        assert marks_retry() == 0
    [row] = SnapshotErase.objects.filter(owner_id=alice.pk)
    assert row.gone is False and row.generations[ITEMS.name] >= 1
    mark = json.loads((a / ".erased" / f"{alice.pk}.json").read_text())
    assert mark == {"gone": False, "generations": row.generations}
    with node("b") as b:  # and another node applies it
        assert erases_catch_up() == 1
        assert json.loads((b / ".erased" / f"{alice.pk}.json").read_text())["gone"] is False


def test_a_write_still_waiting_for_another_folder_does_not_stand_in_for_this_ones(
    alice, commit, node, settings, tmp_path
):
    """The one writer is busy (a large snapshot elsewhere) while the owner's write for
    folder a waits; the same owner's index read as node b must still reach b's folder."""
    with commit():
        memory_create(user=alice, content=FACTS[0])
    busy, release = threading.Event(), threading.Event()
    snapshots._writer.submit(lambda: (busy.set(), release.wait(30)))
    assert busy.wait(30)
    try:
        a = tmp_path / "a" / "indexes"
        settings.GAIA_INDEX_SNAPSHOT_DIR = str(a)
        with as_process(IndexCache(10**9)), commit():
            index_for(ITEMS, alice.pk, MODEL, DIM)  # queued behind the busy write
        with node("b") as b:
            with commit():
                index_for(ITEMS, alice.pk, MODEL, DIM)
            release.set()  # the node's end waits for every write queued
    finally:
        release.set()
    assert list((a / str(alice.pk)).glob("*.faiss")) and list((b / str(alice.pk)).glob("*.faiss"))
