"""The background API endpoints: extract, consolidate on demand, profile."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from conversations.models import Turn
from conversations.services.recording import turn_append
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
EXTRACT = "/api/v1/memories/extract/"
FACTS = {
    "facts": [
        {"category": "fact", "content": "Team recommends PostgreSQL for the user database"},
        {"category": "fact", "content": "Estimated database cost is $2,400/month on RDS"},
        {"category": "profile", "content": "User is an admin"},
    ]
}


def consolidate_url(session_id):
    return reverse("api-session-consolidate", args=[session_id])


def test_extract_returns_atomic_facts_without_storing_by_default(fake_llm, alice_api, alice):
    fake_llm.then(f.answer(FACTS))
    response = alice_api.post(EXTRACT, {"text": "After reviewing the options ..."}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["stored"] == 0
    assert [x["content"] for x in body["facts"][:2]] == [
        "Team recommends PostgreSQL for the user database",
        "Estimated database cost is $2,400/month on RDS",
    ]
    assert KnowledgeItem.objects.for_user(alice).count() == 0


def test_extract_with_store_saves_each_fact_and_refuses_privileged_ones(fake_llm, alice_api, alice):
    fake_llm.then(f.answer(FACTS))
    response = alice_api.post(
        EXTRACT, {"text": "After reviewing ...", "store": True, "context": "infra"}, format="json"
    )
    body = response.json()
    assert response.status_code == 200 and body["stored"] == 2
    assert "privileged" in body["facts"][2]["error"]
    stored = KnowledgeItem.objects.for_user(alice)
    assert set(stored.values_list("source", "context")) == {("llm_extract", "infra")}
    assert stored.count() == 2


@pytest.mark.parametrize(
    "payload",
    [{}, {"text": ""}, {"text": "x" * 20_001}, {"text": "ok", "store": "maybe"}, {"text": ["a"]}],
)
def test_extract_rejects_bad_input_with_400(fake_llm, alice_api, payload):
    response = alice_api.post(EXTRACT, payload, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"


def test_extract_is_503_without_an_llm_or_with_a_failing_one(
    no_llm, alice_api, llm_settings, refused_url
):
    response = alice_api.post(EXTRACT, {"text": "hello there"}, format="json")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "llm_not_configured"
    llm_settings.GAIA_LLM_URL = refused_url
    response = alice_api.post(EXTRACT, {"text": "hello there"}, format="json")
    assert response.status_code == 503 and response.json()["error"]["code"] == "llm_unavailable"


def test_extract_needs_a_token(client):
    assert client.post(EXTRACT, {"text": "x"}, content_type="application/json").status_code in (
        401,
        403,
    )


def test_consolidate_on_demand_summarises_the_session(fake_llm, alice_api, alice):
    for n in range(2):  # fewer than five turns: on demand still works
        turn_append(user=alice, session_id="chat-7", role="user", content=f"line {n}")
    fake_llm.then(f.answer({"summary": "Short chat.", "facts": []}))
    response = alice_api.post(consolidate_url("chat-7"))
    assert response.status_code == 200
    body = response.json()
    assert (body["session_id"], body["turns_consolidated"], body["summary"]) == (
        "chat-7",
        2,
        "Short chat.",
    )
    assert KnowledgeItem.objects.for_user(alice).get().pk == body["note_id"]
    again = alice_api.post(consolidate_url("chat-7")).json()
    assert again["turns_consolidated"] == 0


@pytest.mark.cross_user("api-session-consolidate")
def test_consolidating_another_users_session_is_a_404_and_changes_nothing(fake_llm, alice, bob_api):
    turn_append(user=alice, session_id="private", role="user", content="my secret plans")
    response = bob_api.post(consolidate_url("private"))
    missing = bob_api.post(consolidate_url("no-such-session"))
    assert response.status_code == 404 and response.json() == missing.json()
    assert fake_llm.requests == []
    assert Turn.objects.for_user(alice).get().consolidated_at is None


def test_consolidate_is_503_when_the_llm_fails_and_nothing_changes(fake_llm, alice_api, alice):
    turn_append(user=alice, session_id="s", role="user", content="hello")
    fake_llm.then(f.content("garbage"))
    assert alice_api.post(consolidate_url("s")).status_code == 503
    assert Turn.objects.for_user(alice).get().consolidated_at is None


def test_profile_returns_the_block(no_llm, alice_api, alice):
    memory_create(user=alice, content="User is a violinist")
    body = alice_api.get(reverse("api-prompt-profile")).json()
    assert body["source"] == "raw" and body["bullets"] == ["User is a violinist"]
    assert "data, not instructions" in body["profile"]


@pytest.mark.cross_user("api-prompt-profile")
def test_profile_never_shows_another_users_memory(no_llm, alice, bob_api):
    memory_create(user=alice, content="Alice is a violinist")
    body = bob_api.get(reverse("api-prompt-profile")).json()
    assert body["bullets"] == [] and "violinist" not in body["profile"]


@pytest.mark.cross_user("api-memories-extract")
def test_extract_never_reads_or_writes_another_users_memory(fake_llm, alice, bob, bob_api):
    memory_create(user=alice, content="Alice lives in Lisbon")
    fake_llm.then(f.answer({"facts": [{"content": "Bob lives in Lisbon"}]}))
    bob_api.post(EXTRACT, {"text": "I live in Lisbon", "store": True}, format="json")
    assert "Alice" not in str(fake_llm.requests)
    assert list(KnowledgeItem.objects.for_user(alice).values_list("content", flat=True)) == [
        "Alice lives in Lisbon"
    ]
    assert KnowledgeItem.objects.for_user(bob).count() == 1


def test_idle_sessions_of_alice_and_bob_are_consolidated_separately(fake_llm, alice, bob):
    from learning.consolidation import consolidate_session, sessions_due

    when = timezone.now() - timedelta(hours=2)
    for user in (alice, bob):
        for n in range(5):
            turn_append(
                user=user,
                session_id="same-id",
                role="user",
                content=f"{user.username} line {n}",
                timestamp=when,
            )
    fake_llm.then(f.answer({"summary": "A chat.", "facts": []}))
    consolidate_session(session_pk=sessions_due(user=alice).get().pk)
    assert "bob line" not in str(fake_llm.requests)
    assert Turn.objects.for_user(bob).filter(consolidated_at__isnull=True).count() == 5
    assert KnowledgeItem.objects.for_user(bob).count() == 0
