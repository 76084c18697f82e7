"""A due time without a zone is the person's local time on every door: an Oslo user's
"19:00" is 19:00 in Oslo (18:00 UTC in winter), never 19:00 UTC."""

import json

import pytest
from django.test import Client

from accounts.services import user_settings_update
from memory.models import KnowledgeItem
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
LOCAL = "2026-12-03T19:00:00"  # naive: the person's wall clock
UTC_ISO = "2026-12-03T18:00:00+00:00"  # 19:00 in Oslo (CET, UTC+1)


@pytest.fixture(autouse=True)
def _alice_in_oslo(alice):
    user_settings_update(user=alice, timezone="Europe/Oslo")


def _utc(answer: str) -> str:
    return answer.replace("Z", "+00:00")


def _due(alice, content: str = "Call the plumber") -> str:
    return KnowledgeItem.objects.for_user(alice).get(content=content).due_at.isoformat()


def test_rest_remember_reads_a_naive_due_time_in_the_users_zone(alice_api, alice):
    response = alice_api.post(
        "/api/v1/memories/",
        {"content": "Call the plumber", "category": "reminder", "due_at": LOCAL},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert _utc(response.json()["due_at"]) == UTC_ISO
    assert _due(alice) == UTC_ISO


def test_rest_remember_a_list_reads_each_naive_due_time_in_the_users_zone(alice_api, alice):
    response = alice_api.post(
        "/api/v1/memories/",
        [
            {"content": "Call the plumber", "category": "reminder", "due_at": LOCAL},
            {"content": "Dentist", "category": "reminder", "due_at": "2026-07-01T09:30"},
        ],
        format="json",
    )
    assert response.status_code == 201, response.content
    assert [_utc(r["due_at"]) for r in response.json()] == [UTC_ISO, "2026-07-01T07:30:00+00:00"]
    assert _due(alice, "Dentist") == "2026-07-01T07:30:00+00:00"  # summer time: UTC+2


def test_a_due_time_with_its_own_zone_keeps_it(alice_api, alice):
    alice_api.post(
        "/api/v1/memories/",
        {"content": "Call the plumber", "category": "reminder", "due_at": "2026-12-03T19:00Z"},
        format="json",
    )
    assert _due(alice) == "2026-12-03T19:00:00+00:00"


def test_import_reads_a_naive_due_time_in_the_users_zone(alice_api, alice):
    lines = [
        {"type": "header", "format": "gaia-memory-export", "version": 2},
        {
            "type": "knowledge",
            "content": "Call the plumber",
            "category": "reminder",
            "due_at": LOCAL,
        },
        {"type": "end", "records": 1},
    ]
    body = "".join(json.dumps(line) + "\n" for line in lines)
    response = alice_api.post("/api/v1/import/", body, content_type="application/x-ndjson")
    assert response.status_code in (200, 201), response.content
    assert _due(alice) == UTC_ISO


def test_the_remember_tool_call_reads_a_naive_due_time_in_the_users_zone(alice_api, alice):
    arguments = {"content": "Call the plumber", "category": "reminder", "due_at": LOCAL}
    response = alice_api.post(
        "/api/v1/tools/call/", {"name": "remember", "arguments": arguments}, format="json"
    )
    assert response.status_code == 200 and response.json()["ok"] is True, response.content
    assert _due(alice) == UTC_ISO


def test_the_mcp_remember_tool_reads_a_naive_due_time_in_the_users_zone(alice_api, alice):
    arguments = {"content": "Call the plumber", "category": "reminder", "due_at": LOCAL}
    result = mcp_tool(alice_api, "remember", arguments)
    assert result["isError"] is False, result
    assert _due(alice) == UTC_ISO


def test_the_web_form_reads_a_naive_due_time_in_the_users_zone(alice):
    web = Client()
    web.force_login(alice)
    response = web.post(
        "/memories/new/",
        {"content": "Call the plumber", "category": "reminder", "due_at": "2026-12-03T19:00"},
    )
    assert response.status_code == 302
    assert _due(alice) == UTC_ISO


def test_patch_reads_a_naive_due_time_in_the_users_zone(alice_api, alice):
    made = alice_api.post(
        "/api/v1/memories/", {"content": "Call the plumber", "category": "reminder"}, format="json"
    ).json()
    response = alice_api.patch(f"/api/v1/memories/{made['id']}/", {"due_at": LOCAL}, format="json")
    assert response.status_code == 200, response.content
    assert _due(alice) == UTC_ISO


def test_a_logged_turns_naive_timestamp_is_in_the_users_zone_too(alice_api):
    response = alice_api.post(
        "/api/v1/conversations/turns/",
        {"session_id": "s", "role": "user", "content": "Hello", "timestamp": LOCAL},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert _utc(response.json()["timestamp"]) == UTC_ISO
