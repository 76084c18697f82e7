"""A turn read by its id: an item's source_turn becomes what was said, and in which
session; another user's id and a missing one are the same 404."""

import pytest

from conversations.models import Turn
from conversations.services.recording import turn_append
from tests.support import assert_error

pytestmark = pytest.mark.django_db
TURNS = "/api/v1/conversations/turns/"


def test_a_turn_is_read_by_its_id_with_its_text_and_session(alice_api, alice):
    turn = turn_append(
        user=alice, session_id="chat-7", role="user", content="I moved to Lisbon last spring"
    )
    response = alice_api.get(f"{TURNS}{turn.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["session_id"], body["role"], body["content"]) == (
        turn.pk,
        "chat-7",
        "user",
        "I moved to Lisbon last spring",
    )
    assert body["timestamp"]


def test_an_items_source_turn_leads_to_what_was_said(alice_api, alice):
    turn = turn_append(user=alice, session_id="chat-7", role="user", content="My sister is Ana")
    item = alice_api.post(
        "/api/v1/memories/",
        {"content": "User's sister is Ana", "source_turn": turn.pk},
        format="json",
    ).json()
    said = alice_api.get(f"{TURNS}{item['source_turn']}/").json()
    assert (said["content"], said["session_id"]) == ("My sister is Ana", "chat-7")
    session = alice_api.get(f"/api/v1/conversations/sessions/{said['session_id']}/").json()
    assert [t["id"] for t in session["results"]] == [turn.pk]


@pytest.mark.cross_user("api-turn-detail")
def test_another_users_turn_is_a_404_like_a_missing_one(alice_api, bob_api, alice):
    turn = turn_append(user=alice, session_id="s", role="user", content="alice's secret plan")
    foreign = bob_api.get(f"{TURNS}{turn.pk}/")
    missing = bob_api.get(f"{TURNS}{turn.pk + 1000}/")
    assert_error(foreign, 404)
    assert foreign.json() == missing.json()
    assert "secret plan" not in foreign.content.decode()
    assert_error(alice_api.get(f"{TURNS}{2**70}/"), 404)
    assert Turn.objects.for_user(alice).get().content == "alice's secret plan"


def test_the_turn_read_takes_no_writes(alice_api, alice):
    turn = turn_append(user=alice, session_id="s", role="user", content="hello")
    assert alice_api.patch(f"{TURNS}{turn.pk}/", {"content": "x"}, format="json").status_code == 405
    assert alice_api.delete(f"{TURNS}{turn.pk}/").status_code == 405
    assert Turn.objects.for_user(alice).get().content == "hello"
