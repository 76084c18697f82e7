"""No silent loss: a turn is "done" only when every operation the model proposed was
applied or explicitly skipped; refusals are counted on the turn and shown; a person can
send a failed turn back to extraction."""

import pytest
from django.urls import reverse

from conversations.models import Turn
from conversations.services.recording import turn_append
from learning import extraction
from learning.llm.counters import llm_counts
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def user_turn(user, text="I moved from Berlin to Lisbon with my dog Rex last spring"):
    return turn_append(user=user, session_id="s1", role="user", content=text)


def test_mem0_style_upper_case_operations_are_applied_not_refused(fake_llm, alice):
    berlin = memory_create(user=alice, content="User lives in Berlin")
    turn = user_turn(alice)
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "ADD", "content": "User has a dog named Rex"},
                    {"op": "UPDATE", "knowledge_id": berlin.pk, "content": "User lives in Lisbon"},
                ]
            }
        )
    )
    result = extraction.extract_turn(turn_id=turn.pk)
    assert (result["status"], result["added"], result["updated"], result["refused"]) == (
        "done",
        1,
        1,
        0,
    )
    assert set(
        KnowledgeItem.objects.for_user(alice).active().values_list("content", flat=True)
    ) == {
        "User has a dog named Rex",
        "User lives in Lisbon",
    }


def test_an_explicit_noop_is_a_skip_not_a_failure(fake_llm, alice):
    turn = user_turn(alice)
    fake_llm.then(f.answer({"operations": [{"op": "noop"}]}))
    result = extraction.extract_turn(turn_id=turn.pk)
    assert (result["status"], result["skipped"], result["refused"]) == ("done", 1, 0)
    assert llm_counts(user=alice)["failures"] == {}


def test_a_duplicate_add_is_a_skip(fake_llm, alice):
    memory_create(user=alice, content="User has a dog named Rex")
    turn = user_turn(alice)
    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User has a dog named Rex"}]}))
    result = extraction.extract_turn(turn_id=turn.pk)
    assert (result["status"], result["added"], result["skipped"]) == ("done", 0, 1)


def test_a_refused_operation_is_counted_on_the_turn_which_is_not_done(fake_llm, alice):
    turn = user_turn(alice)
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "add", "content": "User has a dog named Rex"},
                    {"op": "merge", "content": "User lives in Lisbon"},
                    {"op": "update", "knowledge_id": 999_999, "content": "User lives in Lisbon"},
                ]
            }
        )
    )
    result = extraction.extract_turn(turn_id=turn.pk)
    assert (result["status"], result["added"], result["refused"]) == ("partial", 1, 2)
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_refused) == ("partial", 2)
    assert turn.extraction_error.startswith("2 of 3 operations refused")
    assert "Unknown operation 'merge'" in turn.extraction_error
    assert "Unknown knowledge_id 999999" in turn.extraction_error


def test_a_turn_whose_every_operation_was_refused_ends_failed(fake_llm, alice):
    turn = user_turn(alice)
    fake_llm.then(f.answer({"operations": [{"op": "explode"}, {"op": "add"}]}))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "failed"
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_refused) == ("failed", 2)


def test_refusals_are_shown_where_the_extraction_status_is(fake_llm, alice, alice_api, client):
    turn = user_turn(alice)
    fake_llm.then(
        f.answer({"operations": [{"op": "add", "content": "User has a dog"}, {"op": "merge"}]})
    )
    extraction.extract_turn(turn_id=turn.pk)
    body = alice_api.get(f"/api/v1/conversations/sessions/{turn.session.session_id}/").json()
    row = body["results"][0]
    assert (row["extraction_status"], row["extraction_refused"]) == ("partial", 1)
    assert "Unknown operation 'merge'" in row["extraction_error"]
    stats = alice_api.get("/api/v1/stats/").json()["extraction"]
    assert (stats["partial"], stats["operations_refused"]) == (1, 1)
    client.force_login(alice)
    page = client.get(reverse("web-session-detail", args=[turn.session_id])).content.decode()
    assert "learned from, 1 refused" in page and "Try extraction again" in page


def test_the_retry_button_sends_a_failed_turn_back_to_extraction(fake_llm, alice, client, queued):
    turn = user_turn(alice)
    fake_llm.then(f.content("not json"))
    extraction.extract_turn(turn_id=turn.pk)
    assert Turn.objects.get(pk=turn.pk).extraction_status == "failed"
    queued.clear()
    client.force_login(alice)
    response = client.post(reverse("web-turn-extraction-retry", args=[turn.pk]))
    assert response.status_code == 302
    assert response["Location"].endswith(f"?turn={turn.pk}#turn-{turn.pk}")
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_attempts, turn.extraction_error) == (
        "pending",
        0,
        "",
    )
    assert queued == [("learning.tasks.extract_turn", (turn.pk,))]
    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User has a dog"}]}))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"


def test_the_retry_button_only_answers_posts_and_leaves_other_states_alone(alice, client):
    turn = user_turn(alice)
    client.force_login(alice)
    url = reverse("web-turn-extraction-retry", args=[turn.pk])
    assert client.get(url).status_code == 405
    Turn.objects.filter(pk=turn.pk).update(extraction_status="done")
    client.post(url)
    assert Turn.objects.get(pk=turn.pk).extraction_status == "done"


@pytest.mark.cross_user("web-turn-extraction-retry")
def test_another_users_turn_cannot_be_retried(alice, bob, client):
    turn = user_turn(alice)
    Turn.objects.filter(pk=turn.pk).update(
        extraction_status="failed", extraction_error="invalid_json: answer not JSON"
    )
    client.force_login(bob)
    response = client.post(reverse("web-turn-extraction-retry", args=[turn.pk]))
    missing = client.post(reverse("web-turn-extraction-retry", args=[999_999]))
    assert response.status_code == missing.status_code == 404
    assert b"invalid_json" not in response.content
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_error) == (
        "failed",
        "invalid_json: answer not JSON",
    )
