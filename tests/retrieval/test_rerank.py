"""The optional HTTP reranker (/v1/rerank) against a real local server."""

import pytest

from conversations.search import search_turns
from conversations.services import turn_append
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


def test_the_reranker_decides_the_final_order(alice, notes, reranker):
    reranker.rerank_scores = {
        n.content: score for n, score in zip(notes, [0.1, 0.2, 0.9], strict=True)
    }
    hits = recall(user=alice, query="what happens on Sunday", top_k=3)
    assert [h.item.pk for h in hits] == [notes[2].pk, notes[1].pk, notes[0].pk]
    assert hits[0].score == pytest.approx(0.9)
    request = reranker.requests[-1]
    assert request["path"] == "/v1/rerank"
    assert request["model"] == "fake-rerank"
    assert request["query"] == "what happens on Sunday"
    assert sorted(request["documents"]) == sorted(n.content for n in notes)
    assert reranker.headers[-1]["Authorization"] == "Bearer rerank-key"


@pytest.mark.parametrize("behaviour", ["http_500", "not_json", "trickle"])
def test_a_failing_reranker_leaves_the_fused_order(alice, notes, reranker, behaviour, settings):
    settings.GAIA_RERANK_URL = ""
    fused = [h.item.pk for h in recall(user=alice, query="Sunday bread", top_k=3)]
    settings.GAIA_RERANK_URL = reranker.url
    reranker.behaviour = behaviour
    hits = recall(user=alice, query="Sunday bread", top_k=3)
    assert [h.item.pk for h in hits] == fused


def test_conversation_search_is_reranked_too(alice, commit, reranker):
    with commit():
        turns = [
            turn_append(user=alice, session_id="s", role="user", content=text)
            for text in ["pasta tonight", "pasta recipe from Rome", "pasta shopping list"]
        ]
    reranker.rerank_scores = {"pasta shopping list": 5.0}
    assert search_turns(user=alice, query="pasta", top_k=3)[0].turn.pk == turns[2].pk


def test_a_judging_reranker_leaves_out_what_it_scores_below_its_minimum(
    alice, notes, reranker, settings
):
    settings.GAIA_RERANK_MIN_SCORE = 0.5
    reranker.rerank_scores = {
        n.content: score for n, score in zip(notes, [0.05, 0.7, 0.2], strict=True)
    }
    hits = recall(user=alice, query="what happens on Sunday", top_k=3)
    assert [h.item.pk for h in hits] == [notes[1].pk]
    assert hits[0].score == pytest.approx(0.7)


def test_a_question_sharing_one_word_with_a_memory_gets_nothing_once_the_reranker_judges(
    alice, notes, commit, reranker, settings
):
    with commit():
        turn = turn_append(user=alice, session_id="s", role="user", content="football at noon")
    question = "the etiquette of football among penguins"
    reranker.rerank_scores = {n.content: 0.02 for n in notes} | {turn.content: 0.02}
    only_reordered = recall(user=alice, query=question, min_relevance=0)
    assert notes[1].pk in [h.item.pk for h in only_reordered]
    assert [h.turn.pk for h in search_turns(user=alice, query=question, min_relevance=0)] == [
        turn.pk
    ]
    settings.GAIA_RERANK_MIN_SCORE = 0.5
    assert recall(user=alice, query=question, min_relevance=0) == []
    assert search_turns(user=alice, query=question, min_relevance=0) == []


def test_a_judge_that_fails_leaves_the_fused_hits(alice, notes, reranker, settings):
    settings.GAIA_RERANK_MIN_SCORE = 0.5
    settings.GAIA_RERANK_URL = ""
    fused = [h.item.pk for h in recall(user=alice, query="Sunday bread", top_k=3)]
    settings.GAIA_RERANK_URL = reranker.url
    reranker.behaviour = "http_500"
    assert fused
    assert [h.item.pk for h in recall(user=alice, query="Sunday bread", top_k=3)] == fused
