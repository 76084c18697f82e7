"""Hybrid recall through the service entry point, with the real local embedder."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.lineage import memory_supersede_by
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create, memory_forget, memory_restore, memory_touch
from privacy.services import memory_erase
from tests.recall_fixtures import ALICE_FACTS

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_facts(alice, commit):
    with commit():
        return [memory_create(user=alice, content=text) for text in ALICE_FACTS]


def ids(hits) -> list[int]:
    return [h.item.pk for h in hits]


def test_a_paraphrase_with_no_shared_word_is_found_by_the_vector_stage(alice, alice_facts):
    hits = recall(user=alice, query="food intolerance", top_k=1, min_relevance=0)
    assert ids(hits) == [alice_facts[1].pk]
    assert hits[0].matched_by == "vector"


def test_an_item_found_by_both_stages_says_so_and_ranks_first(alice, alice_facts):
    # Every row, so there is a weaker one to compare with: her name is no topic, and
    # only the laptop answers (the facts are told by her name: she is the holder).
    hits = recall(user=alice, query="which laptop does Alice use", min_relevance=0)
    assert len(hits) > 1 and hits[0].item.pk == alice_facts[4].pk
    assert hits[0].matched_by == "both"
    assert hits[0].score > hits[-1].score


def test_results_are_ordered_best_first_and_capped_at_top_k(alice, alice_facts):
    hits = recall(user=alice, query="coffee", top_k=2, min_relevance=0)
    assert len(hits) == 2
    assert hits[0].item.pk == alice_facts[2].pk
    assert hits[0].score >= hits[1].score


def test_bob_never_gets_alices_items_even_with_identical_text(alice, bob, commit):
    with commit():
        mine = memory_create(user=bob, content="Bob's locker code is kept in the blue notebook")
        memory_create(user=alice, content="Bob's locker code is kept in the blue notebook")
        memory_create(user=alice, content="The blue notebook sits on the kitchen shelf")
    hits = recall(user=bob, query="blue notebook locker code", top_k=10)
    assert ids(hits) == [mine.pk]


def test_forgotten_superseded_and_erased_items_never_come_back(alice, commit, alice_facts):
    with commit():
        memory_forget(user=alice, item_id=alice_facts[1].pk)
        newer = memory_create(user=alice, content="Maya moved to Porto", source="user")
        memory_supersede_by(user=alice, item_id=alice_facts[0].pk, by_id=newer.pk)
        memory_erase(user=alice, item_id=alice_facts[4].pk)
    found = ids(recall(user=alice, query="peanut allergy sister Lisbon laptop", top_k=10))
    assert alice_facts[1].pk not in found
    assert alice_facts[0].pk not in found
    assert alice_facts[4].pk not in found
    assert newer.pk in ids(recall(user=alice, query="where does Maya live"))


def test_a_restored_item_is_found_again_by_its_vector(alice, commit, alice_facts):
    with commit():
        memory_forget(user=alice, item_id=alice_facts[1].pk)
    assert alice_facts[1].pk not in ids(
        recall(user=alice, query="food intolerance", min_relevance=0)
    )
    with commit():
        memory_restore(user=alice, item_id=alice_facts[1].pk)
    assert ids(recall(user=alice, query="food intolerance", top_k=1, min_relevance=0)) == [
        alice_facts[1].pk
    ]


def test_filters_category_context_entity_and_sensitive(alice, commit):
    with commit():
        work = memory_create(user=alice, content="Deploys happen on Tuesdays", context="work")
        shared = memory_create(user=alice, content="Deploys need a green build")
        home = memory_create(user=alice, content="Deploys of the garden robot", context="home")
        pref = memory_create(
            user=alice, content="Prefers deploys early", category="preference", entity="Team:Ops"
        )
        secret = memory_create(user=alice, content="Deploy password hint: cat", sensitive=True)
    query = "deploys"
    assert set(ids(recall(user=alice, query=query, context="work", top_k=10))) == {
        work.pk,
        shared.pk,
        pref.pk,
    }
    assert ids(recall(user=alice, query=query, category="preference")) == [pref.pk]
    assert ids(recall(user=alice, query=query, entity="team:ops")) == [pref.pk]
    assert secret.pk not in ids(recall(user=alice, query=query, top_k=10))
    assert secret.pk in ids(recall(user=alice, query=query, top_k=10, include_sensitive=True))
    assert home.pk not in ids(recall(user=alice, query=query, context="work", top_k=10))


def test_a_filter_that_excludes_every_nearest_vector_still_finds_the_allowed_items(alice, commit):
    with commit():
        for n in range(60):
            memory_create(user=alice, content=f"Meeting notes {n}: roadmap, budget, hiring")
        reminder = memory_create(
            user=alice, content="Book the meeting room for the roadmap", category="reminder"
        )
    hits = recall(user=alice, query="roadmap meeting notes", category="reminder")
    assert ids(hits) == [reminder.pk]


def test_time_filters_apply_to_created_at(alice, commit):
    with commit():
        old = memory_create(user=alice, content="Old fact about sailing")
        new = memory_create(user=alice, content="New fact about sailing")
    KnowledgeItem.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=30))
    since = timezone.now() - timedelta(days=1)
    assert ids(recall(user=alice, query="sailing", time_from=since)) == [new.pk]
    assert ids(recall(user=alice, query="sailing", time_to=since)) == [old.pk]


def test_recall_is_a_pure_read(alice, alice_facts):
    before = list(KnowledgeItem.objects.values_list("pk", "confidence", "use_count", "last_used"))
    with CaptureQueriesContext(connection) as queries:
        hits = recall(user=alice, query="Alice", top_k=3)
    writes = [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))
    ]
    assert len(hits) == 3 and writes == []
    after = list(KnowledgeItem.objects.values_list("pk", "confidence", "use_count", "last_used"))
    assert after == before


def test_marking_hits_used_takes_two_queries(alice, alice_facts):
    """The items' update and the day's usage counters' update, once the day's rows exist."""
    hits = recall(user=alice, query="Alice", top_k=3)
    memory_touch(user=alice, item_ids=ids(hits))  # the day's first use makes its usage rows
    with CaptureQueriesContext(connection) as queries:
        memory_touch(user=alice, item_ids=ids(hits))
    assert len(queries) == 2
    touched = KnowledgeItem.objects.filter(pk__in=ids(hits))
    assert all(i.use_count == 2 and i.last_used is not None for i in touched)
    assert all(i.confidence == pytest.approx(0.74) for i in touched)


def test_an_empty_query_finds_nothing(alice, alice_facts):
    assert recall(user=alice, query="   ") == []
