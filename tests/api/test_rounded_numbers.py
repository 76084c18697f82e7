"""Numbers in answers read as numbers a person would write: a confidence raised by five
recalls of 0.02 is 0.8, not 0.7999999999999999."""

import pytest

from memory.models import KnowledgeItem
from memory.services import memory_create, memory_touch

pytestmark = pytest.mark.django_db


@pytest.fixture
def drifted(alice):
    item = memory_create(user=alice, content="Alice's bike is a green Brompton", source="tool")
    KnowledgeItem.objects.filter(pk=item.pk).update(confidence=0.7, importance=0.1 + 0.2)
    for _ in range(5):
        memory_touch(user=alice, item_ids=[item.pk])
    item.refresh_from_db()
    assert repr(item.confidence) != "0.8" or repr(item.importance) != "0.3"  # float drift
    return item


def test_a_memory_answers_rounded_confidence_and_importance(alice_api, drifted):
    body = alice_api.get(f"/api/v1/memories/{drifted.pk}/").json()
    assert body["confidence"] == round(drifted.confidence, 4)
    assert repr(body["confidence"]) == "0.8" and repr(body["importance"]) == "0.3"
    listed = alice_api.get("/api/v1/memories/").json()["results"][0]
    assert repr(listed["confidence"]) == "0.8"


def test_recall_answers_rounded_numbers(alice_api, drifted):
    hits = alice_api.post(
        "/api/v1/memories/search/", {"query": "green Brompton bike"}, format="json"
    ).json()["results"]
    assert hits and all(len(repr(h[k])) <= 6 for h in hits for k in ("score", "relevance"))
    assert repr(hits[0]["confidence"]) in {"0.8", "0.82"}  # this recall bumped it once more


def test_conversation_search_answers_rounded_numbers(alice, alice_api):
    for text in ("I booked the Lisbon flight for May", "The hotel is near Alfama"):
        turn = {"session_id": "trip", "role": "user", "content": text}
        alice_api.post("/api/v1/conversations/turns/", turn, format="json")
    hits = alice_api.post(
        "/api/v1/conversations/search/", {"query": "flight to Lisbon"}, format="json"
    ).json()["results"]
    assert hits and all(len(repr(h[k])) <= 6 for h in hits for k in ("score", "relevance"))
