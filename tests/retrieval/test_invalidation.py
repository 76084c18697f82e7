"""Indexes of other processes follow writes through the per-user generation counter.

A "process" here is its own vector-index cache; the database is shared, as it is
between gunicorn workers and django-q2 workers.
"""

import pytest
from django.utils.timezone import now

from conversations.search import search_turns
from conversations.services.recording import turn_append
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create, memory_create_many, memory_forget
from privacy.services import memory_erase
from retrieval.embedding.services import embed_rows
from retrieval.index_cache import IndexCache
from retrieval.indexes import index_for
from tests.recall_fixtures import as_process

pytestmark = pytest.mark.django_db


@pytest.fixture
def web_a():
    return IndexCache(10**9)


@pytest.fixture
def worker_b():
    return IndexCache(10**9)


def ids(hits) -> list[int]:
    return [h.item.pk for h in hits]


def test_an_item_written_in_another_process_is_found_by_vector_at_once(
    alice, commit, web_a, worker_b
):
    with as_process(web_a), commit():
        memory_create(user=alice, content="Alice's gym is on Baker Street")
    with as_process(web_a):
        assert recall(user=alice, query="fitness club")  # builds A's index
    with as_process(worker_b), commit():
        written = memory_create(user=alice, content="Alice's violin teacher is Mr. Ibsen")
    with as_process(web_a):
        hits = recall(user=alice, query="music lessons instructor", top_k=1)
    assert ids(hits) == [written.pk] and hits[0].matched_by == "vector"


def test_a_forget_in_another_process_hides_the_item_everywhere_at_once(
    alice, commit, web_a, worker_b
):
    with as_process(web_a), commit():
        item = memory_create(user=alice, content="Alice's bank PIN hint is her cat's birthday")
    with as_process(web_a):
        assert ids(recall(user=alice, query="bank pin hint")) == [item.pk]
    with as_process(worker_b), commit():
        memory_forget(user=alice, item_id=item.pk)
    with as_process(web_a):
        assert recall(user=alice, query="bank pin hint") == []
        assert item.pk not in index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384)


FACTS = [
    "Alice grows tomatoes on her balcony",
    "Alice's sister lives in Lyon",
    "Alice drives a blue hatchback",
    "Alice is allergic to penicillin",
    "Alice plays the cello on Sundays",
    "Alice's dentist is Dr. Moreau",
    "Alice runs a half marathon every spring",
    "Alice prefers tea without sugar",
    "Alice's landlord raised the rent in May",
    "Alice learned Portuguese in Lisbon",
    "Alice keeps two cats named Pixel and Byte",
    "Alice works night shifts at the hospital",
    "Alice's favourite author is Ursula Le Guin",
    "Alice broke her wrist skiing in 2019",
    "Alice volunteers at the food bank",
    "Alice's laptop is a ten year old ThinkPad",
    "Alice bakes sourdough on weekends",
    "Alice's grandmother was born in Krakow",
    "Alice saves for a trip to Japan",
    "Alice hates loud restaurants",
    "Alice's bike was stolen last winter",
    "Alice studies astronomy at night school",
    "Alice's phone plan renews on the 3rd",
    "Alice collects vinyl jazz records",
    "Alice's team uses Jira for tickets",
    "Alice swims at the lake in summer",
    "Alice's mortgage is with a local credit union",
    "Alice knits scarves for her nephews",
    "Alice's passport expires next August",
    "Alice sings in a community choir",
]


def test_rows_hidden_without_announcement_leave_the_index_when_a_search_comes_up_short(
    alice, commit, web_a
):
    """A bulk update that bypasses the services (no generation bump) hides 28 of 30 items:
    the index still holds their vectors until a search finds its over-fetch eaten by them;
    that search drops them from the index and returns only what is still there."""
    with as_process(web_a), commit():
        items = memory_create_many(user=alice, items=[{"content": fact} for fact in FACTS])
    with as_process(web_a):
        assert len(recall(user=alice, query="Alice", top_k=30, min_relevance=0)) == 30
        index = index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384)
        assert index.size == 30
        kept, hidden = items[:2], items[2:]
        KnowledgeItem.objects.filter(pk__in=[i.pk for i in hidden]).update(forgotten_at=now())
        hits = recall(user=alice, query="what vegetables does she grow", top_k=5, min_relevance=0)
        assert sorted(ids(hits)) == sorted(i.pk for i in kept)
        assert index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384) is index
        assert index.size == 2 and all(i.pk not in index for i in hidden)


def test_an_erase_in_another_process_removes_the_vector_everywhere(alice, commit, web_a, worker_b):
    with as_process(web_a), commit():
        item = memory_create(user=alice, content="Alice's old address: 12 Elm Road")
    with as_process(web_a):
        assert recall(user=alice, query="address")
    with as_process(worker_b), commit():
        memory_erase(user=alice, item_id=item.pk)
    with as_process(web_a):
        index = index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384)
        assert item.pk not in index and recall(user=alice, query="where did Alice live") == []


def test_a_vector_stored_by_a_worker_is_used_by_the_web_process(
    alice, commit, web_a, worker_b, settings
):
    settings.GAIA_EMBEDDER = "openai"  # the web process cannot embed: saved unembedded
    settings.GAIA_EMBED_URL = "http://127.0.0.1:9"
    settings.GAIA_EMBED_MODEL = "x"
    with as_process(web_a), commit():
        item = memory_create(user=alice, content="Alice plays the oboe in an orchestra")
    settings.GAIA_EMBEDDER = "local"
    with as_process(web_a):
        unjudged = {"judge": False, "min_relevance": 0}  # the index alone, not the floor
        assert recall(user=alice, query="woodwind instrument", **unjudged) == []  # no vector
    with as_process(worker_b), commit():
        assert embed_rows(ITEMS, alice.pk, [item.pk]) == 1
    with as_process(web_a):
        hits = recall(user=alice, query="woodwind instrument", top_k=1, **unjudged)
    assert ids(hits) == [item.pk] and hits[0].matched_by == "vector"


def test_writes_in_this_process_update_its_index_in_place(alice, commit, web_a):
    with as_process(web_a), commit():
        memory_create(user=alice, content="Alice likes hiking")
    with as_process(web_a):
        index = index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384)
        with commit():
            added = memory_create(user=alice, content="Alice bought a kayak")
        assert index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384) is index  # no rebuild
        assert added.pk in index


def test_rows_deleted_behind_the_services_back_are_never_returned(alice, commit, web_a):
    with as_process(web_a), commit():
        items = [
            memory_create(user=alice, content=f"Garden note {n}: {flower}")
            for n, flower in enumerate(["roses", "tulips by the roses", "roses and lilies"])
        ]
    with as_process(web_a):
        assert len(recall(user=alice, query="roses")) == 3
        KnowledgeItem.objects.filter(pk=items[0].pk).delete()  # no event: a buggy path
        found = ids(recall(user=alice, query="roses", top_k=5))
        assert items[0].pk not in found and len(found) == 2
        assert items[0].pk not in index_for(ITEMS, alice.pk, "bge-small-en-v1.5-int8", 384)


def test_turns_written_in_another_process_are_found_by_vector(alice, commit, web_a, worker_b):
    with as_process(web_a), commit():
        turn_append(user=alice, session_id="s", role="user", content="I love my garden")
    with as_process(web_a):
        assert search_turns(user=alice, query="garden")
    with as_process(worker_b), commit():
        other = turn_append(
            user=alice, session_id="s", role="user", content="We adopted a beagle puppy"
        )
    with as_process(web_a):
        hits = search_turns(user=alice, query="new dog", top_k=1)
    assert [h.turn.pk for h in hits] == [other.pk] and hits[0].matched_by == "vector"
