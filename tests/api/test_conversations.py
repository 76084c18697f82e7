from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from tests.support import assert_error

pytestmark = pytest.mark.django_db
TURNS = "/api/v1/conversations/turns/"
SEARCH = "/api/v1/conversations/search/"
SESSIONS = "/api/v1/conversations/sessions/"
TOOL_CALLS = "/api/v1/tool-calls/"


def test_it_logs_one_turn_and_creates_the_session_on_first_use(alice_api, alice):
    response = alice_api.post(
        TURNS,
        {"session_id": "chat-1", "role": "user", "content": "I moved to Lisbon last spring"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    turn = Turn.objects.for_user(alice).get()
    assert body["id"] == turn.pk and body["session_id"] == "chat-1"
    assert body["extraction_status"] == "pending"
    assert Session.objects.for_user(alice).get().session_id == "chat-1"


def test_it_logs_a_batch_of_turns_in_order_with_their_timestamps(alice_api, alice):
    when = timezone.now() - timedelta(days=3)
    turns = [
        {"session_id": "s", "role": "user", "content": "Hi", "timestamp": when.isoformat()},
        {"session_id": "s", "role": "assistant", "content": "Hello!", "speaker": "bot"},
    ]
    response = alice_api.post(TURNS, turns, format="json")
    assert response.status_code == 201
    body = response.json()
    assert [t["content"] for t in body] == ["Hi", "Hello!"]
    assert body[0]["id"] < body[1]["id"]
    assert Turn.objects.get(pk=body[0]["id"]).timestamp == when


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"session_id": "s", "role": "narrator", "content": "x"},
        {"session_id": "s", "role": "user", "content": ""},
        {"session_id": "", "role": "user", "content": "x"},
        {"session_id": "s" * 129, "role": "user", "content": "x"},
        {"session_id": "s", "role": "user", "content": "x", "timestamp": "last tuesday"},
        {"session_id": "s", "role": "user", "content": "x", "owner": 1},
        {"session_id": ["s"], "role": "user", "content": "x"},
        [{"session_id": "s", "role": "user", "content": "ok"}, {"role": "user"}],
    ],
)
def test_it_refuses_bad_turns_and_stores_none(alice_api, alice, body):
    assert_error(alice_api.post(TURNS, body, format="json"), 400)
    assert Turn.objects.for_user(alice).count() == 0


def test_it_searches_past_conversations_by_words_and_time(alice_api, alice):
    old = turn_append(
        user=alice,
        session_id="a",
        role="user",
        content="We picked PostgreSQL for billing",
        timestamp=timezone.now() - timedelta(days=10),
    )
    new = turn_append(user=alice, session_id="b", role="assistant", content="Lunch was great")
    response = alice_api.post(SEARCH, {"query": "postgresql billing"}, format="json")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["id"] for r in results] == [old.pk]
    assert {"id", "session_id", "role", "content", "timestamp", "score"} <= set(results[0])
    since = (timezone.now() - timedelta(days=1)).isoformat()
    recent = alice_api.post(SEARCH, {"time_from": since}, format="json").json()["results"]
    assert [r["id"] for r in recent] == [new.pk]
    only_b = alice_api.post(SEARCH, {"query": "lunch", "session_id": "a"}, format="json")
    assert only_b.json()["results"] == []


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": "  "},
        {"query": "x", "top_k": 0},
        {"query": "x", "top_k": 101},
        {"query": "x", "role": "narrator"},
        {"time_from": "soon"},
        {"query": "x", "session_id": "a\x00"},
    ],
)
def test_it_refuses_conversation_searches_without_a_query_or_time_range(alice_api, body):
    assert_error(alice_api.post(SEARCH, body, format="json"), 400)


def test_it_lists_sessions_and_shows_one_with_its_turns(alice_api, alice):
    turn_append(
        user=alice,
        session_id="older",
        role="user",
        content="first",
        timestamp=timezone.now() - timedelta(hours=2),
    )
    turn_append(user=alice, session_id="newer", role="user", content="one")
    turn_append(user=alice, session_id="newer", role="assistant", content="two")
    sessions = alice_api.get(SESSIONS).json()
    assert [s["session_id"] for s in sessions["results"]] == ["newer", "older"]
    assert sessions["results"][0]["turn_count"] == 2
    one = alice_api.get(f"{SESSIONS}newer/", {"page_size": 1}).json()
    assert one["session"]["session_id"] == "newer"
    assert one["count"] == 2 and [t["content"] for t in one["results"]] == ["one"]
    assert one["next"]


def test_it_answers_unknown_or_impossible_session_ids_with_404(alice_api):
    assert_error(alice_api.get(f"{SESSIONS}nope/"), 404)
    assert_error(alice_api.get(f"{SESSIONS}{'x' * 300}/"), 404)
    assert_error(alice_api.get(f"{SESSIONS}a%00b/"), 404)


def test_it_logs_tool_calls_and_summarises_them(alice_api, alice):
    ok = {"session_id": "s", "tool_name": "web_search", "args": {"q": "x"}, "duration_ms": 120}
    assert alice_api.post(TOOL_CALLS, ok, format="json").status_code == 201
    failed = {"tool_name": "web_search", "success": False, "error": "quota", "duration_ms": 80}
    response = alice_api.post(TOOL_CALLS, failed, format="json")
    assert response.status_code == 201 and response.json()["session_id"] is None
    listed = alice_api.get(TOOL_CALLS).json()
    assert listed["count"] == 2 and listed["results"][0]["error"] == "quota"
    assert alice_api.get(TOOL_CALLS, {"success": "false"}).json()["count"] == 1
    assert alice_api.get(TOOL_CALLS, {"session_id": "s"}).json()["count"] == 1
    summary = alice_api.get(f"{TOOL_CALLS}summary/").json()["results"]
    assert summary == [
        {
            "tool_name": "web_search",
            "calls": 2,
            "success_rate": 0.5,
            "mean_duration_ms": 100.0,
            "last_error": "quota",
        }
    ]


def test_a_tool_call_is_logged_with_openais_field_names_too(alice_api, alice):
    call = {"name": "web_search", "arguments": '{"q": "lisbon"}', "success": False, "error": "x"}
    response = alice_api.post(TOOL_CALLS, call, format="json")
    assert response.status_code == 201, response.content
    stored = ToolCall.objects.for_user(alice).get()
    assert (stored.tool_name, stored.args, stored.success) == ("web_search", {"q": "lisbon"}, False)
    as_object = {"name": "calc", "arguments": {"expression": "1/0"}}
    assert alice_api.post(TOOL_CALLS, as_object, format="json").json()["args"] == {
        "expression": "1/0"
    }


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"tool_name": ""},
        {"name": ""},
        {"arguments": "{}"},
        {"name": "t", "arguments": "{not json"},
        {"name": "t", "arguments": "42"},
        {"name": "t", "tool_name": "t"},
        {"tool_name": "t", "args": {}, "arguments": "{}"},
        {"tool_name": "t", "args": "a string"},
        {"tool_name": "t", "args": {"k": "\x00"}},
        {"tool_name": "t", "duration_ms": -1},
        {"tool_name": "t", "duration_ms": 2**40},
        {"tool_name": "t", "duration_ms": "fast"},
        {"tool_name": "t", "success": "maybe"},
        {"tool_name": "t", "timestamp": "9999-12-31T23:59:59-12:00"},
        {"tool_name": "t", "id": 5},
    ],
)
def test_it_refuses_bad_tool_calls(alice_api, alice, body):
    assert_error(alice_api.post(TOOL_CALLS, body, format="json"), 400)
    assert ToolCall.objects.for_user(alice).count() == 0


@pytest.mark.cross_user("api-sessions", "api-session-detail", "api-turns")
def test_sessions_are_per_user_even_with_the_same_session_id(alice_api, bob_api, alice, bob):
    turn_append(user=alice, session_id="alice-only", role="user", content="alice secret plan")
    turn_append(user=alice, session_id="same-name", role="user", content="alice words")
    assert_error(bob_api.get(f"{SESSIONS}alice-only/"), 404)
    assert bob_api.get(f"{SESSIONS}alice-only/").json() == bob_api.get(f"{SESSIONS}nope/").json()
    response = bob_api.post(
        TURNS, {"session_id": "same-name", "role": "user", "content": "bob words"}, format="json"
    )
    assert response.status_code == 201
    alice_session = Session.objects.for_user(alice).get(session_id="same-name")
    assert [t.content for t in alice_session.turns.all()] == ["alice words"]
    detail = bob_api.get(f"{SESSIONS}same-name/").json()
    assert [t["content"] for t in detail["results"]] == ["bob words"]
    assert [s["session_id"] for s in bob_api.get(SESSIONS).json()["results"]] == ["same-name"]


@pytest.mark.cross_user("api-turn-search", "api-tool-calls", "api-tool-call-summary")
def test_searches_and_tool_call_lists_never_show_another_users_rows(bob_api, bob, near_twins):
    found = bob_api.post(SEARCH, {"query": "work on project gaia", "top_k": 100}, format="json")
    assert [r["content"] for r in found.json()["results"]] == [
        "I am bob and I work on project gaia every day"
    ]
    recent = bob_api.post(SEARCH, {"time_from": "2000-01-01"}, format="json").json()["results"]
    assert all("bob" in r["content"] for r in recent) and len(recent) == 1
    calls = bob_api.get(TOOL_CALLS, {"session_id": "shared-session"}).json()["results"]
    assert [c["error"] for c in calls] == ["bob search quota exceeded"]
    summary = bob_api.get(f"{TOOL_CALLS}summary/").json()["results"]
    assert summary[0]["calls"] == 1 and summary[0]["last_error"] == "bob search quota exceeded"
    tool_call_record(user=bob, tool_name="calc", session_id="shared-session")
    assert ToolCall.objects.filter(session__owner=bob).count() == 2
