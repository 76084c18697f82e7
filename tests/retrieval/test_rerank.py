"""The optional HTTP reranker (/v1/rerank) against a real local server."""

import pytest

from conversations.search import search_turns
from conversations.services.recording import turn_append
from memory.recall import recall
from memory.services import memory_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def reranker(settings, model_server):
    settings.GAIA_RERANK_URL = model_server.url
    settings.GAIA_RERANK_MODEL = "fake-rerank"
    settings.GAIA_RERANK_API_KEY = "rerank-key"
    settings.GAIA_RERANK_TIMEOUT = 1.0
    return model_server


@pytest.fixture
def notes(alice, commit):
    with commit():
        return [
            memory_create(user=alice, content="Tea with Grandma on Sundays"),
            memory_create(user=alice, content="Sunday football with the neighbours"),
            memory_create(user=alice, content="Sunday market for fresh bread"),
        ]


def test_a_rerank_server_replaces_the_local_judge_and_decides_the_order(alice, notes, reranker):
    reranker.rerank_scores = {
        n.content: score for n, score in zip(notes, [0.3, 0.45, 0.97], strict=True)
    }
    hits = recall(user=alice, query="what happens on Sunday", top_k=3, min_relevance=0)
    assert [h.item.pk for h in hits] == [notes[2].pk, notes[1].pk, notes[0].pk]
    assert hits.judged is True
    assert hits[0].relevance >= 0.97  # a probability is taken as it is (or the fused, higher)
    request = reranker.requests[-1]
    assert request["path"] == "/v1/rerank"
    assert request["model"] == "fake-rerank"
    assert request["query"] == "what happens on Sunday"  # as asked, not rewritten
    assert sorted(request["documents"]) == sorted(n.content for n in notes)
    assert reranker.headers[-1]["Authorization"] == "Bearer rerank-key"


def test_raw_logits_from_a_rerank_server_are_calibrated_into_relevance(alice, notes, reranker):
    reranker.rerank_scores = {
        n.content: score for n, score in zip(notes, [-11.5, 4.0, -9.5], strict=True)
    }
    hits = recall(user=alice, query="what happens on Sunday", top_k=3, min_relevance=0)
    assert [h.item.pk for h in hits][:1] == [notes[1].pk]
    assert hits[0].relevance > 0.99  # logit 4: sure


def test_what_the_judge_is_sure_of_outweighs_a_shared_word(alice, notes, commit, reranker):
    with commit():
        turn_append(user=alice, session_id="s", role="user", content="football at noon")
    question = "the etiquette of football among penguins"
    reranker.rerank_scores = {n.content: 0.001 for n in notes} | {"user: football at noon": 0.001}
    unjudged = recall(user=alice, query=question, min_relevance=0, judge=False)
    assert notes[1].pk in [h.item.pk for h in unjudged]
    assert recall(user=alice, query=question) == []
    assert search_turns(user=alice, query=question) == []


@pytest.mark.parametrize("behaviour", ["http_500", "not_json", "trickle"])
def test_a_failing_rerank_server_leaves_the_fused_order_and_says_so(
    alice, notes, reranker, behaviour, settings
):
    settings.GAIA_RERANK_URL = ""
    fused = recall(user=alice, query="Sunday bread", top_k=3, judge=False)
    settings.GAIA_RERANK_URL = reranker.url
    reranker.behaviour = behaviour
    hits = recall(user=alice, query="Sunday bread", top_k=3)
    assert fused and [h.item.pk for h in hits] == [h.item.pk for h in fused]
    assert hits.judged is False and hits.reason == "unavailable"


def test_conversation_search_is_judged_too(alice, commit, reranker):
    with commit():
        turns = [
            turn_append(user=alice, session_id=f"s{n}", role="user", content=text)
            for n, text in enumerate(
                ["pasta tonight", "pasta recipe from Rome", "pasta shopping list"]
            )
        ]
    reranker.rerank_scores = {
        "user: pasta shopping list": 0.99,
        "user: pasta recipe from Rome": 0.2,
        "user: pasta tonight": 0.05,
    }
    hits = search_turns(user=alice, query="pasta", top_k=3)
    assert hits.judged is True and hits[0].turn.pk == turns[2].pk
    assert reranker.requests[-1]["documents"][0].startswith("user: pasta")  # as indexed
