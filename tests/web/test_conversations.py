"""Conversation pages: sessions, a session's turns, turn search, tool-call history."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Session, Turn
from conversations.services.recording import tool_call_record, turn_append
from memory import services
from tests.web.seed import seed_month

pytestmark = pytest.mark.django_db


def test_it_lists_sessions_with_their_counts_latest_first(alice_web, alice):
    now = timezone.now()
    turn_append(
        user=alice, session_id="old", role="user", content="hi", timestamp=now - timedelta(days=2)
    )
    for n in range(3):
        turn_append(user=alice, session_id="new", role="user", content=f"turn {n}")
    tool_call_record(user=alice, tool_name="calendar", session_id="new")
    response = alice_web.get("/conversations/")
    assert response.status_code == 200
    sessions = list(response.context["page"].object_list)
    assert [s.session_id for s in sessions] == ["new", "old"]
    assert (sessions[0].turn_count, sessions[0].tool_call_count) == (3, 1)
    assert (sessions[1].turn_count, sessions[1].tool_call_count) == (1, 0)


def test_it_shows_an_empty_state_without_conversations(alice_web):
    assert b"No conversations yet" in alice_web.get("/conversations/").content


def test_a_session_page_shows_its_turns_in_order_with_extraction_state(alice_web, alice):
    now = timezone.now()
    first = turn_append(
        user=alice,
        session_id="s1",
        role="user",
        content="I moved to Lisbon last weekend.",
        timestamp=now - timedelta(minutes=5),
    )
    turn_append(user=alice, session_id="s1", role="assistant", content="Congratulations!")
    failed = turn_append(
        user=alice, session_id="s1", role="user", content="My new job starts on Monday"
    )
    Turn.objects.filter(pk=failed.pk).update(
        extraction_status="failed", extraction_error="LLM answer was not valid JSON"
    )
    item = services.memory_create(
        user=alice, content="Lives in Lisbon.", source="llm_extract", source_turn=first
    )
    session = Session.objects.for_user(alice).get()
    response = alice_web.get(f"/conversations/{session.pk}/")
    assert response.status_code == 200
    assert [row["turn"].pk for row in response.context["turns"]][0] == first.pk
    html = response.content.decode()
    assert f'id="turn-{first.pk}"' in html
    assert f"started {timezone.localtime(first.timestamp):%b %-d, %Y %H:%M}" in html
    assert "waiting for extraction" in html
    assert "Extraction failed: LLM answer was not valid JSON" in html
    assert f'href="/memories/{item.pk}/"' in html  # what was learned from the turn


def test_a_session_page_lists_its_tool_calls_with_errors(alice_web, alice):
    tool_call_record(
        user=alice,
        tool_name="web.search",
        session_id="s1",
        success=False,
        error="HTTP 503 from search provider",
        args={"q": "flights"},
    )
    tool_call_record(user=alice, tool_name="calendar", session_id="other")
    session = Session.objects.for_user(alice).get(session_id="s1")
    response = alice_web.get(f"/conversations/{session.pk}/")
    assert [c.tool_name for c in response.context["tool_calls"]] == ["web.search"]
    assert b"HTTP 503 from search provider" in response.content


def test_search_finds_turns_and_links_to_their_session(alice_web, alice):
    seed_month(alice)
    response = alice_web.get("/conversations/search/?q=Lisbon+flat")
    assert response.status_code == 200
    hits = response.context["hits"]
    assert hits and "Lisbon" in hits[0].turn.content
    turn = hits[0].turn
    html = response.content.decode()
    assert f'href="/conversations/{turn.session_id}/?turn={turn.pk}#turn-{turn.pk}"' in html
    assert "in moving-day" in html


def test_search_filters_by_role(alice_web, alice):
    turn_append(user=alice, session_id="s", role="user", content="book a table in Lisbon")
    turn_append(user=alice, session_id="s", role="assistant", content="Lisbon table booked")
    hits = alice_web.get("/conversations/search/?q=Lisbon&role=assistant").context["hits"]
    assert [h.turn.role for h in hits] == ["assistant"]


def test_search_without_a_query_shows_a_prompt_not_an_error(alice_web):
    response = alice_web.get("/conversations/search/")
    assert response.status_code == 200
    assert b"Search your conversations" in response.content
    weird = alice_web.get("/conversations/search/", {"q": 'AND ( "', "role": "bogus"})
    assert weird.status_code == 200


def test_tool_calls_page_shows_history_summary_and_failed_filter(alice_web, alice):
    seed_month(alice)
    response = alice_web.get("/conversations/tools/")
    assert response.status_code == 200
    assert {t["tool_name"] for t in response.context["summary"]} == {
        "calendar.lookup",
        "web.search",
    }
    failed = alice_web.get("/conversations/tools/?failed=1")
    calls = list(failed.context["page"].object_list)
    assert calls and all(not c.success for c in calls)
    assert b"HTTP 503 from search provider" in failed.content
    one_tool = alice_web.get("/conversations/tools/?tool=calendar.lookup").context["page"]
    assert {c.tool_name for c in one_tool.object_list} == {"calendar.lookup"}


@pytest.mark.cross_user("web-session-list")
def test_session_lists_never_show_another_users_sessions(alice_web, alice, bob):
    seed_month(bob)
    turn_append(user=alice, session_id="mine", role="user", content="hello")
    sessions = alice_web.get("/conversations/").context["page"].object_list
    assert [s.session_id for s in sessions] == ["mine"]


@pytest.mark.cross_user("web-session-detail")
def test_another_users_session_is_not_found(bob_web, alice):
    turn_append(user=alice, session_id="private", role="user", content="alice's secret")
    session = Session.objects.for_user(alice).get()
    response = bob_web.get(f"/conversations/{session.pk}/")
    assert response.status_code == 404
    assert b"alice's secret" not in response.content


@pytest.mark.cross_user("web-turn-search")
def test_turn_search_never_returns_another_users_turns(alice_web, alice, bob):
    turn_append(user=bob, session_id="s", role="user", content="bob flew to Lisbon")
    turn_append(user=alice, session_id="s", role="user", content="alice flew to Lisbon")
    hits = alice_web.get("/conversations/search/?q=Lisbon").context["hits"]
    assert [h.turn.content for h in hits] == ["alice flew to Lisbon"]


@pytest.mark.cross_user("web-tool-calls")
def test_tool_call_history_never_shows_another_users_calls(alice_web, alice, bob):
    tool_call_record(user=bob, tool_name="bob.tool", success=False, error="bob's error")
    tool_call_record(user=alice, tool_name="alice.tool")
    response = alice_web.get("/conversations/tools/")
    assert [c.tool_name for c in response.context["page"].object_list] == ["alice.tool"]
    assert b"bob.tool" not in response.content


def test_a_link_to_a_turn_opens_the_page_that_holds_it(alice_web, alice):
    start = timezone.now() - timedelta(days=1)
    turns = [
        turn_append(
            user=alice,
            session_id="long",
            role="user",
            content=f"turn number {n}",
            timestamp=start + timedelta(minutes=n),
        )
        for n in range(130)
    ]
    session = Session.objects.for_user(alice).get()
    late = alice_web.get(f"/conversations/{session.pk}/?turn={turns[120].pk}")
    assert late.context["page"].number == 2
    assert f'id="turn-{turns[120].pk}"' in late.content.decode()
    assert (
        alice_web.get(f"/conversations/{session.pk}/?turn={turns[3].pk}").context["page"].number
        == 1
    )
    assert alice_web.get(f"/conversations/{session.pk}/?turn=oops").status_code == 200


def test_a_tool_filter_with_a_nul_is_read_without_it(alice_web, alice):
    # PostgreSQL refuses a NUL in a string: the page filters on the rest, never a 500.
    tool_call_record(user=alice, tool_name="alice.tool")
    response = alice_web.get("/conversations/tools/", {"tool": "alice.tool\x00"})
    assert response.status_code == 200
    assert [c.tool_name for c in response.context["page"].object_list] == ["alice.tool"]
