"""Relevance a caller can use: fair between sources, a floor for the unrelated, pure reads."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conversations.search import search_turns
from conversations.services.recording import turn_append
from memory.recall import recall
from memory.services import memory_create
from retrieval import perspective, relevance

pytestmark = pytest.mark.django_db

# A conversation whose facts were learned from its turns, like extraction stores them.
CHAT = [
    ("My dog Rex loves the beach, we go every weekend", "Alice's dog Rex loves the beach"),
    ("I named the dog Rex after my grandfather's dog", "Alice's dog is named after a family dog"),
    ("Rex chewed my running shoes again this morning", "Rex chews Alice's running shoes"),
    ("The vet says Rex is healthy and a bit too heavy", "Alice's dog Rex is slightly overweight"),
    ("I walk Rex along the river before work", "Alice walks her dog by the river"),
]


@pytest.fixture
def linked(alice, commit):
    """Alice's conversation about her dog and the facts linked to its turns."""
    with commit():
        for said, fact in CHAT:
            turn = turn_append(user=alice, session_id="dog", role="user", content=said)
            memory_create(user=alice, content=fact, source="llm_extract", source_turn=turn)


def test_a_linked_memory_never_outranks_an_unlinked_exact_match(alice, linked, commit):
    with commit():
        own = memory_create(user=alice, content="User has a dog named Rex", source="user")
    hits = recall(user=alice, query="User has a dog named Rex", top_k=3)
    assert hits[0].item.pk == own.pk, [(h.item.content, h.score) for h in hits]


def test_linked_memories_are_found_through_their_turns_on_their_own_evidence(alice, linked):
    hits = recall(user=alice, query="weekend trips to the beach", top_k=2)
    assert hits[0].item.content == "Alice's dog Rex loves the beach"


@pytest.mark.parametrize(
    "query",
    ["tectonic plates made of marshmallow", "the stock price of invisible umbrellas"],
)
def test_a_nonsense_query_returns_nothing_by_default(alice, linked, query):
    assert recall(user=alice, query=query) == []
    assert search_turns(user=alice, query=query) == []
    assert len(recall(user=alice, query=query, min_relevance=0)) > 0  # candidates exist


def test_every_hit_carries_a_relevance_between_0_and_1_and_the_floor_applies(alice, linked):
    everything = recall(user=alice, query="Rex the dog", top_k=10, min_relevance=0)
    assert everything and all(0.0 <= h.relevance <= 1.0 for h in everything)
    strict = recall(user=alice, query="Rex the dog", top_k=10, min_relevance=0.5)
    assert [h.item.pk for h in strict] == [h.item.pk for h in everything if h.relevance >= 0.5]


@pytest.mark.parametrize("sourced", [True, False], ids=["linked", "unlinked"])
def test_one_recall_runs_a_bounded_number_of_statements(alice, commit, sourced):
    """At most 8 with facts learned from turns (whether the person's memory is on, what
    they need, the names the person's entities go by, the turns' search, the items', the
    rows only a vector found of each, the candidates' kind and age (diary notes by age),
    the hits); 7 without (no turn search, and the turn search's statements are the ones
    the linked case saves); the judge reads the candidates' text in one statement more.
    These facts are told by a name ("Alice's dog Rex ...") in a store too small to tell
    which form the person's memories use (`Holder.also`): the question is searched both as
    "User's" and as "Alice's", one keyword search more, and one more of the turns for
    linked facts."""
    with commit():
        for n, (said, fact) in enumerate(CHAT * 3):
            turn = turn_append(user=alice, session_id="dog", role="user", content=f"{n} {said}")
            memory_create(
                user=alice, content=f"{fact} ({n})", source_turn=turn if sourced else None
            )
    question = "what did the vet say about my dog's weight"
    recall(user=alice, query=question, top_k=5)  # word counts are cached (30 s) after this
    with CaptureQueriesContext(connection) as queries:
        hits = recall(user=alice, query=question, top_k=5)
    assert hits
    assert len(queries) <= (11 if sourced else 9), "\n".join(q["sql"][:120] for q in queries)
    with CaptureQueriesContext(connection) as queries:
        assert recall(user=alice, query=question, top_k=5, judge=False)
    assert len(queries) <= (10 if sourced else 8), "\n".join(q["sql"][:120] for q in queries)


def test_first_person_questions_are_read_as_memories_name_the_account_holder():
    assert perspective.as_stored("What's my cat's name?") == "What's User's cat's name?"
    assert perspective.as_stored("Where do I live, and is it mine?") == (
        "Where do User live, and is it User's?"
    )
    assert perspective.as_stored("Mimic the iMac") == "Mimic the iMac"


def test_relevance_counts_similarity_and_the_query_words_a_row_holds():
    assert relevance.relevance(0.9, 0.0) == 1.0
    assert relevance.relevance(0.1, 0.0) == 0.0
    assert relevance.relevance(0.1, 1.0) == 1.0  # every word of the query: an exact match
    assert relevance.relevance(0.2, 0.33) < 0.2  # one word in three, distant meaning
    weights = {"rex": 2.0, "beach": 1.0}
    assert relevance.coverage(weights, "Rex loves the beaches") == 1.0
    assert relevance.coverage(weights, "the beach") == pytest.approx(1 / 3)
