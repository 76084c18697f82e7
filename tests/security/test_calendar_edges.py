"""Dates at the edge of the calendar: times outside 1900..8999 (UTC) are a clear 400 at
every door, and a time at either end of that range is shown and computed in any user's
zone (UTC-12 to UTC+14) without a 500: per-turn context, lists, pages and forms."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.test import Client

from accounts.services import user_settings_update
from conversations.models import ToolCall, Turn
from conversations.services.recording import turn_append
from core.validation import WHEN_MAX, WHEN_MIN, parse_when
from memory import services
from memory.models import KnowledgeItem
from tests.support import assert_error

pytestmark = pytest.mark.django_db
ZONES = ["America/New_York", "Etc/GMT+12", "Pacific/Kiritimati"]  # UTC-5, UTC-12, UTC+14


def _web(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "when",
    [
        "0001-01-01T00:00Z",
        "0001-01-01",
        "1899-12-31T23:59:59Z",
        "9000-01-01T00:00Z",
        "9999-12-31T23:59:59-12:00",
        "0001-01-01T00:00:00+14:00",
    ],
)
def test_a_time_outside_the_range_is_a_clear_400_everywhere(alice, alice_api, when):
    user_settings_update(user=alice, timezone="America/New_York")
    item = services.memory_create(user=alice, content="Pay the rent")
    bodies = [
        ("post", "/api/v1/memories/", {"content": "Renew the passport", "due_at": when}),
        ("patch", f"/api/v1/memories/{item.pk}/", {"due_at": when}),
        ("patch", f"/api/v1/memories/{item.pk}/", {"reminded_at": when}),
        ("post", "/api/v1/memories/search/", {"query": "rent", "time_to": when}),
        ("post", "/api/v1/conversations/turns/",
         {"session_id": "s", "role": "user", "content": "hi", "timestamp": when}),
        ("post", "/api/v1/tool-calls/", {"tool_name": "t", "timestamp": when}),
        ("post", "/api/v1/conversations/search/", {"time_from": when}),
    ]  # fmt: skip
    for method, url, body in bodies:
        error = assert_error(getattr(alice_api, method)(url, body, format="json"), 400)
        assert any("1900-01-01 to 8999-12-31" in m for ms in error["fields"].values() for m in ms)
    assert KnowledgeItem.objects.count() == 1 and not Turn.objects.exists()


@pytest.mark.parametrize("zone", ZONES)
def test_times_at_both_ends_of_the_range_show_in_any_zone(alice, alice_api, zone):
    user_settings_update(user=alice, timezone=zone)
    early = services.memory_create(user=alice, content="Grandpa was born", due_at=WHEN_MIN)
    late = services.memory_create(user=alice, content="Far future deadline", due_at=WHEN_MAX)
    for when in (WHEN_MIN, WHEN_MAX):
        turn_append(user=alice, session_id="edge", role="user", content="hi", timestamp=when)
    web = _web(alice)
    session = Turn.objects.first().session_id

    assert "OVERDUE" in alice_api.get("/api/v1/prompt/context/?days=366").json()["context"]
    for url in (
        "/api/v1/memories/",
        "/api/v1/memories/upcoming/?days=366",
        "/api/v1/conversations/sessions/",
        "/api/v1/conversations/sessions/edge/",
        "/api/v1/activity/?days=90",
        "/api/v1/stats/",
        "/api/v1/export/",
    ):
        assert alice_api.get(url).status_code == 200, url
    pages = [f"/memories/{item.pk}/{page}" for item in (early, late) for page in ("", "edit/")]
    for url in (
        "/",
        "/memories/",
        "/memories/?ordering=due_at",
        *pages,
        "/conversations/",
        f"/conversations/{session}/",
        "/conversations/search/?q=hi",
    ):
        assert web.get(url).status_code == 200, url
    search = {"time_from": WHEN_MIN.isoformat(), "time_to": WHEN_MAX.isoformat()}
    assert alice_api.post("/api/v1/conversations/search/", search, format="json").status_code == 200


@pytest.mark.parametrize(
    ("zone", "due"),
    [("Etc/GMT+12", "9999-12-31T23:59"), ("America/New_York", "0001-01-01T00:00"),
     ("Etc/GMT+12", "8999-12-31T23:59")],
)  # fmt: skip
def test_the_web_form_answers_a_time_outside_the_range_with_a_form_error(alice, zone, due):
    user_settings_update(user=alice, timezone=zone)
    form = {"content": "Renew the passport", "category": "fact", "context": "global", "due_at": due}

    response = _web(alice).post("/memories/new/", form)

    assert response.status_code == 200
    assert "1900-01-01 to 8999-12-31" in response.content.decode()
    assert not KnowledgeItem.objects.exists()


def test_the_migration_moves_stored_times_outside_the_range_to_its_ends(alice, alice_api):
    user_settings_update(user=alice, timezone="America/New_York")
    item = services.memory_create(user=alice, content="Pay the rent", due_at=WHEN_MIN)
    turn = turn_append(user=alice, session_id="s", role="user", content="hi")
    # What the old code let through: year 1, and the last moment before year 10000.
    year_one = WHEN_MIN.replace(year=1)
    KnowledgeItem.objects.filter(pk=item.pk).update(due_at=year_one, reminded_at=year_one)
    Turn.objects.filter(pk=turn.pk).update(timestamp=WHEN_MAX + timedelta(days=365 * 999))

    for migration in ("memory.migrations.0008", "conversations.migrations.0005"):
        importlib.import_module(f"{migration}_repair_text_and_dates").repair(apps, None)

    item.refresh_from_db()
    turn.refresh_from_db()
    assert item.due_at == WHEN_MIN and item.reminded_at == WHEN_MIN
    assert turn.timestamp == WHEN_MAX and turn.session.last_turn_at <= WHEN_MAX
    assert alice_api.get("/api/v1/prompt/context/").status_code == 200
    assert _web(alice).get(f"/memories/{item.pk}/").status_code == 200


@pytest.mark.parametrize("older_than", ["3000y", "99999d", "5300w", "1300m", "101y"])
def test_forget_older_than_a_span_past_the_calendar_is_a_400(alice, alice_api, older_than):
    services.memory_create(user=alice, content="Pay the rent")

    response = alice_api.post("/api/v1/memories/forget/", {"older_than": older_than}, format="json")

    error = assert_error(response, 400)
    assert error["fields"] == {"older_than": ["At most 100 years (e.g. 100y or 36500d)."]}
    ok = alice_api.post("/api/v1/memories/forget/", {"older_than": "100y"}, format="json")
    assert ok.status_code == 200 and ok.json()["forgotten"] == 0


@pytest.mark.parametrize("when", ["4237-08-24T02:42:00-17:58", "2026-03-27T09:00:00+23:30"])
def test_an_offset_iso_allows_but_postgresql_does_not_is_stored_as_the_same_instant(
    alice_api, when
):
    """ISO 8601 offsets reach 23:59, PostgreSQL's stop at 15:59: such a time is kept as
    the same instant in UTC, not a 500 (found by the schema fuzzer on PostgreSQL)."""
    body = {"session_id": "s-edge", "tool_name": "calculator", "success": False,
            "timestamp": when}  # fmt: skip
    response = alice_api.post("/api/v1/tool-calls/", body, format="json")
    assert response.status_code == 201, response.content
    given = parse_when(when, field="timestamp")
    stored = ToolCall.objects.get(pk=response.json()["id"]).timestamp
    assert stored == given and stored.utcoffset() == timedelta(0)
