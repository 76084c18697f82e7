"""The dashboard: counts, the SVG activity chart, upcoming items, tools, extraction backlog."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Turn
from conversations.services.recording import tool_call_record, turn_append
from memory import services
from memory.web.chart import activity_chart, nice_ceiling
from retrieval.embedding import current_model_id
from tests.web.seed import seed_month

pytestmark = pytest.mark.django_db


def test_it_shows_a_welcome_for_an_empty_memory(alice_web):
    response = alice_web.get("/")
    assert response.status_code == 200
    assert b"Your memory is empty" in response.content
    assert b"No activity in the last 30 days yet" in response.content


def test_it_shows_counts_by_category_context_and_source(alice_web, alice):
    seed_month(alice)
    response = alice_web.get("/")
    context = response.context
    assert context["stats"]["knowledge"]["active"] == 14
    categories = {row["value"]: row["count"] for row in context["by_category"]}
    assert categories["fact"] == 7 and categories["reminder"] == 2
    contexts = {row["value"]: row["count"] for row in context["by_context"]}
    assert contexts == {"work": 6, "global": 5, "home": 3}
    sources = {row["label"]: row["count"] for row in context["by_source"]}
    assert sources["Agents"] == 6 and sources["Extraction"] == 2
    html = response.content.decode()
    assert 'href="/memories/?category=fact"' in html
    assert 'href="/memories/?context=work"' in html
    assert "sensitive · last changed " in html and " ago</span>" in html


def test_it_draws_the_activity_chart_as_inline_svg(alice_web, alice):
    turn_append(user=alice, session_id="s", role="user", content="hello there agent")
    services.memory_create(user=alice, content="Likes jazz.", source="user")
    tool_call_record(user=alice, tool_name="search")
    tool_call_record(user=alice, tool_name="search", timestamp=timezone.now() - timedelta(days=3))
    html = alice_web.get("/").content.decode()
    svg = re.search(r"<svg viewBox=\"0 0 1000 240\".*?</svg>", html, re.S).group(0)
    assert 'class="series series-turns"' in svg
    today = timezone.localdate()
    assert f"{today:%b} {today.day}: 1 turns, 1 new memories, 1 tool calls" in svg
    three_days = today - timedelta(days=3)
    assert f"{three_days:%b} {three_days.day}: 0 turns, 0 new memories, 1 tool calls" in svg
    assert len(re.findall(r"<rect x=[^>]*rx=\"1.5\"", svg)) == 4  # one bar per non-zero count


def test_it_lists_upcoming_and_overdue_items(alice_web, alice):
    data = seed_month(alice)
    html = alice_web.get("/").content.decode()
    assert f'href="/memories/{data["overdue"].pk}/"' in html
    assert f'href="/memories/{data["reminder"].pk}/"' in html
    assert "overdue (1 day ago)" in html
    assert "due in 1 day" in html


def test_it_shows_top_entities_and_tool_success_rates(alice_web, alice):
    seed_month(alice)
    html = alice_web.get("/").content.decode()
    assert 'href="/memories/?entity=person%3Asarah_chen"' in html
    assert "web.search" in html and "64%" in html
    assert "Last error: HTTP 503 from search provider" in html


def test_it_says_when_no_llm_is_configured_and_how_many_turns_wait(alice_web, alice, settings):
    settings.GAIA_LLM_URL = ""
    for n in range(3):
        turn_append(
            user=alice, session_id="s", role="user", content=f"I moved to Lisbon in year {n}"
        )
    html = alice_web.get("/").content.decode()
    assert "No LLM configured: 3 turns waiting." in html


def test_it_shows_extraction_failures_with_their_reason(alice_web, alice, settings):
    settings.GAIA_LLM_URL = "http://127.0.0.1:9/v1"
    turn = turn_append(user=alice, session_id="s", role="user", content="I moved to Lisbon in May")
    Turn.objects.filter(pk=turn.pk).update(
        extraction_status="failed", extraction_error="LLM timed out after 60 s"
    )
    html = alice_web.get("/").content.decode()
    assert "No LLM configured" not in html
    assert "LLM timed out after 60 s" in html
    assert "1 turn," in html


def test_it_shows_embedding_coverage(alice_web, alice):
    item = services.memory_create(user=alice, content="Likes jazz.", source="user")
    cello = services.memory_create(user=alice, content="Plays the cello.", source="user")
    type(cello).objects.filter(pk=cello.pk).update(embedding=None, embedding_model="")
    other = services.memory_create(user=alice, content="Owns a red bicycle.", source="user")
    model = current_model_id()
    type(item).objects.filter(pk=item.pk).update(embedding=b"\0" * 8, embedding_model=model)
    # A vector of another model does not count.
    type(other).objects.filter(pk=other.pk).update(embedding=b"\0" * 8, embedding_model="old")
    response = alice_web.get("/")
    assert response.context["coverage_pct"] == 33
    assert b"1 of 3 memories searchable by meaning" in response.content


@pytest.mark.cross_user("web-dashboard")
def test_it_never_counts_another_users_data(alice_web, alice, bob):
    seed_month(bob)
    response = alice_web.get("/")
    assert response.context["stats"]["knowledge"]["active"] == 0
    assert response.context["stats"]["conversations"]["turns"] == 0
    html = response.content.decode()
    assert "org:lumen" not in html and "web.search" not in html
    assert "quarterly report" not in html


def test_the_y_axis_top_is_a_round_number_at_or_above_the_largest_count():
    assert nice_ceiling(0) == 4
    assert nice_ceiling(3) == 4
    assert nice_ceiling(5) == 8
    assert nice_ceiling(9) == 20
    assert nice_ceiling(37) == 40
    assert nice_ceiling(41) == 80
    assert nice_ceiling(1234) == 2000


def test_the_chart_scales_bars_to_the_axis_and_labels_one_day_a_week():
    days = [
        {"date": f"2026-03-{d:02d}", "turns": d % 3, "memories": 0, "tool_calls": 0}
        for d in range(1, 31)
    ]
    days[-1]["turns"] = 8
    chart = activity_chart(days)
    turns = next(s for s in chart["series"] if s.key == "turns")
    assert turns.total == sum(d["turns"] for d in days)
    tallest = max(turns.bars, key=lambda b: b.height)
    assert tallest.y == pytest.approx(chart["grid"][-1]["y"])  # 8 is the top of the axis
    assert tallest.y + tallest.height == pytest.approx(chart["baseline"])
    assert [t["label"] for t in chart["ticks"]] == ["Mar 2", "Mar 9", "Mar 16", "Mar 23", "Mar 30"]
    assert all(b.x >= chart["left"] and b.x + b.width <= chart["right"] for b in turns.bars)
    assert not chart["empty"]
