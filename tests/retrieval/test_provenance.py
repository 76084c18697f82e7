"""Recall through provenance: an item is also found by the words of the turn it came from.

These are the fused stages (the fast path, `judge=False`); with the judge an item is then
judged on its own text (tests/retrieval/test_judge.py).
"""

import random

import pytest

from conversations.services.recording import turn_append
from memory.recall import recall
from memory.services import memory_create, memory_forget
from retrieval import candidates, keyword

pytestmark = pytest.mark.django_db

WORDS = (
    "chess opera tennis rust python berlin tokyo violin cello jazz hiking skiing sushi ramen "
    "yoga pottery knitting gardening cycling rowing poetry painting astronomy birdwatching"
).split()
PICNIC = "We had a picnic by the lake last Sunday with sandwiches and lemonade"


@pytest.fixture
def learned(alice, commit):
    """Alice's facts: one drawn from a turn about a picnic (its words are not in the fact)."""
    with commit():
        turn = turn_append(user=alice, session_id="s1", role="user", content=PICNIC)
        turn_append(user=alice, session_id="s1", role="user", content="My cat is called Tom")
        sourced = memory_create(
            user=alice, content="Alice is grateful for her friends", source_turn=turn
        )
        others = [
            memory_create(user=alice, content=text)
            for text in (
                "Alice swims in the lake every summer",
                "Alice owns a red bicycle",
                "Alice works as a nurse",
            )
        ]
    return {"turn": turn, "sourced": sourced, "others": others}


def test_an_item_is_found_through_the_words_of_its_source_turn(alice, learned):
    hits = recall(user=alice, query="when was the picnic by the lake", top_k=2, judge=False)
    assert hits[0].item.pk == learned["sourced"].pk


def test_without_a_source_turn_the_same_question_does_not_find_it(alice, learned, commit):
    with commit():
        learned["sourced"].source_turn = None
        learned["sourced"].save(update_fields=["source_turn"])
    hits = recall(user=alice, query="when was the picnic by the lake", top_k=2, judge=False)
    assert hits[0].item.pk != learned["sourced"].pk


def test_the_stage_keeps_recall_filters_and_never_returns_forgotten_items(alice, learned):
    query = "when was the picnic by the lake"
    assert recall(user=alice, query=query, category="preference", judge=False) == []
    memory_forget(user=alice, item_id=learned["sourced"].pk)
    hits = recall(user=alice, query=query, top_k=10, judge=False)
    assert learned["sourced"].pk not in [h.item.pk for h in hits]


def test_an_item_only_its_turn_finds_is_labelled_conversation(alice, learned, commit):
    rng = random.Random(3)
    with commit():  # enough unrelated items that the vector and keyword stages miss it
        for _ in range(60):
            memory_create(user=alice, content="Alice likes " + " ".join(rng.sample(WORDS, 6)))
    hits = recall(user=alice, query="sandwiches and lemonade", top_k=5, judge=False)
    found = {h.item.pk: h.matched_by for h in hits}
    assert found.get(learned["sourced"].pk) == "conversation"


def test_another_users_turns_never_propose_their_items(alice, bob, learned, commit):
    with commit():
        memory_create(user=bob, content="Bob is grateful for his friends")
    hits = recall(
        user=bob, query="when was the picnic by the lake", top_k=10, min_relevance=0, judge=False
    )
    assert [h.item.owner_id for h in hits] == [bob.pk]


def test_an_exact_match_still_leads_when_neighbouring_turns_mention_it(alice, commit):
    """Each turn is indexed with the one before it, so a word also matches the next turn;
    the item learned from the turn that says it must still come first."""
    words = ["mkbqd", "mkbqbd", "mkbqbi", "mkbqdd", "mkbqdi", "mkbqbb", "mkbqii", "mkbqid"]
    with commit():
        for word in words:
            turn = turn_append(
                user=alice,
                session_id="s1",
                role="user",
                content=f"I really enjoy {word} on weekends",
            )
            memory_create(user=alice, content=f"User enjoys {word}", source_turn=turn)
    for word in words:
        hits = recall(user=alice, query=word, top_k=5, judge=False)
        assert hits[0].item.content == f"User enjoys {word}", [h.item.content for h in hits]


def test_both_keyword_stages_run_before_recall_waits_for_the_query_vector(
    alice, learned, monkeypatch
):
    """The conversation stage's keyword search is not queued behind the embedding."""
    steps: list[str] = []
    search_rows, query_vector = keyword.search_rows, candidates.query_vector

    def searched(spec, *args, **kwargs):
        steps.append(f"keyword {spec.table}")
        return search_rows(spec, *args, **kwargs)

    def waited(text):
        steps.append("vector")
        return query_vector(text)

    monkeypatch.setattr(keyword, "search_rows", searched)
    monkeypatch.setattr(candidates, "query_vector", waited)
    hits = recall(user=alice, query="picnic by the lake", top_k=3, judge=False)
    assert steps == [
        "keyword memory_knowledgeitem",
        "keyword conversations_turn",
        "vector",  # the turns' vector stage
        "vector",  # the items' (the same vector, cached)
    ]
    assert learned["sourced"].pk in [h.item.pk for h in hits]
