"""A process whose index is behind catches up on the rows changed since, without a rebuild.

A "process" is its own vector-index cache (`as_process`); the database, and with it the
per-user change log, is shared as between gunicorn and django-q2 workers.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.corpus import TURNS
from conversations.search import search_turns
from conversations.services.recording import turn_append
from conversations.services.redaction import turns_prune
from memory.corpus import ITEMS
from memory.recall import recall
from memory.services import memory_create, memory_forget, memory_update
from privacy.services import memory_erase
from retrieval import changelog
from retrieval.index_cache import IndexCache
from retrieval.indexes import index_for, index_rebuild
from tests.recall_fixtures import as_process

pytestmark = pytest.mark.django_db
MODEL, DIM = "bge-small-en-v1.5-int8", 384


@pytest.fixture
def web_a():
    return IndexCache(10**9)


@pytest.fixture
def worker_b():
    return IndexCache(10**9)


def items_index(user):
    return index_for(ITEMS, user.pk, MODEL, DIM)


def test_a_process_behind_applies_adds_changes_and_removals_without_rebuilding(
    alice, commit, web_a, worker_b
):
    with as_process(web_a), commit():
        kept = memory_create(user=alice, content="Alice's gym is on Baker Street")
        changed = memory_create(user=alice, content="Alice drives a red bicycle")
        forgotten = memory_create(user=alice, content="Alice's locker code hint is her cat")
        erased = memory_create(user=alice, content="Alice's old address was 12 Elm Road")
    with as_process(web_a):
        before = items_index(alice)
    counted = dict(web_a.counts)  # its own writes read the index too (their near-duplicates)
    with as_process(worker_b), commit():
        added = memory_create(user=alice, content="Alice's violin teacher is Mr. Ibsen")
        memory_update(user=alice, item_id=changed.pk, content="Alice sails a boat")
        memory_forget(user=alice, item_id=forgotten.pk)
        memory_erase(user=alice, item_id=erased.pk)
    with as_process(web_a):
        after = items_index(alice)
        hits = recall(user=alice, query="music lessons instructor", top_k=1)
        sailing = recall(user=alice, query="sailing boat", top_k=1)
    assert after is before
    assert web_a.counts["catch_ups"] - counted.get("catch_ups", 0) == 1
    assert web_a.counts["rebuilds"] - counted.get("rebuilds", 0) == 0
    assert {kept.pk, added.pk, changed.pk} <= set(after.ids())
    assert forgotten.pk not in after and erased.pk not in after
    assert [h.item.pk for h in hits] == [added.pk] and hits[0].matched_by == "vector"
    assert [h.item.pk for h in sailing] == [changed.pk]


def test_the_caught_up_index_answers_as_a_fresh_build_would(alice, commit, web_a, worker_b):
    with as_process(web_a), commit():
        first = [memory_create(user=alice, content=f"Garden note {n}: roses") for n in range(3)]
    with as_process(web_a):
        items_index(alice)
    with as_process(worker_b), commit():
        memory_forget(user=alice, item_id=first[0].pk)
        memory_create(user=alice, content="Alice planted tulips by the fence")
    with as_process(web_a):
        caught_up = sorted(items_index(alice).ids())
    with as_process(IndexCache(10**9)):
        fresh = sorted(items_index(alice).ids())
    assert caught_up == fresh


def test_a_process_behind_a_compacted_log_rebuilds(alice, commit, web_a, worker_b, monkeypatch):
    monkeypatch.setattr(changelog, "KEEP_GENERATIONS", 2)
    monkeypatch.setattr(changelog, "COMPACT_EVERY", 1)
    with as_process(web_a), commit():
        memory_create(user=alice, content="Alice likes hiking")
    with as_process(web_a):
        before = items_index(alice)
    with as_process(worker_b), commit():
        for city in ["Oslo in spring", "Rome for a wedding", "Lima with Maya", "Kyoto alone"]:
            memory_create(user=alice, content=f"Alice travelled to {city}")
    with as_process(web_a):
        after = items_index(alice)
    assert after is not before and after.size == 5
    assert web_a.counts["rebuilds"] == 1 and web_a.counts["catch_ups"] == 0


def test_a_rebuild_requested_anywhere_rebuilds_every_process(alice, commit, web_a, worker_b):
    with as_process(web_a), commit():
        memory_create(user=alice, content="Alice likes hiking")
    with as_process(web_a):
        before = items_index(alice)
    with as_process(worker_b):
        index_rebuild(ITEMS, alice.pk, MODEL, DIM)
    with as_process(web_a):
        assert items_index(alice) is not before
    assert web_a.counts["rebuilds"] == 1


def test_the_turn_index_catches_up_on_added_and_deleted_turns(alice, commit, web_a, worker_b):
    long_ago = timezone.now() - timedelta(days=400)
    with as_process(web_a), commit():
        gone = turn_append(
            user=alice, session_id="s", role="user", content="My cat is ill", timestamp=long_ago
        )
        turn_append(user=alice, session_id="t", role="user", content="I love my garden")
    with as_process(web_a):
        before = index_for(TURNS, alice.pk, MODEL, DIM)
    with as_process(worker_b), commit():
        other = turn_append(user=alice, session_id="t", role="user", content="We got a beagle")
        turns_prune(user=alice, before=long_ago + timedelta(days=1))
    with as_process(web_a):
        hits = search_turns(user=alice, query="new dog", top_k=1, judge=False)  # the index
        after = index_for(TURNS, alice.pk, MODEL, DIM)
    assert after is before and web_a.counts["catch_ups"] == 1
    assert other.pk in after and gone.pk not in after
    assert [h.turn.pk for h in hits] == [other.pk]


def test_a_bump_without_a_change_list_cannot_be_caught_up(alice):
    assert changelog.changed_since("items", alice.pk, 0, 1) is None
    changelog.log_changes("items", alice.pk, 1, [])
    assert changelog.changed_since("items", alice.pk, 0, 1) == []
