"""Helpers for the API tests: the error shape and a few stored rows."""

from typing import Any

import pytest
from django.core.cache import cache

from conversations.services.recording import tool_call_record, turn_append
from memory import services


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """The users of these tests need no slow hashing (it dominated their run time)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_throttle_counts():
    """Throttle counters live in the cache; start every test from zero."""
    cache.clear()
    yield
    cache.clear()


def assert_error(response: Any, status: int, code: str | None = None) -> dict:
    """The response has `status` and the one error shape; returns the error object."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    # mem0's API (/mem0/) adds `detail`, the text mem0's SDK puts in its exceptions.
    mem0 = response.wsgi_request.path.startswith("/mem0/")
    assert set(body) == ({"error", "detail"} if mem0 else {"error"})
    assert {"code", "message"} <= set(body["error"]) <= {"code", "message", "fields"}
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


@pytest.fixture
def alice_item(alice):
    return services.memory_create(user=alice, content="Alice drinks oat milk flat whites")


@pytest.fixture
def near_twins(alice, bob):
    """Alice and bob with nearly identical memories, turns and tool calls."""
    rows = {}
    for user, name in ((alice, "alice"), (bob, "bob")):
        rows[name] = services.memory_create(
            user=user, content=f"The user {name} works on project gaia", category="fact"
        )
        services.memory_create(
            user=user, content=f"{name} prefers dark mode", category="preference"
        )
        turn_append(
            user=user,
            session_id="shared-session",
            role="user",
            content=f"I am {name} and I work on project gaia every day",
        )
        tool_call_record(
            user=user,
            tool_name="web_search",
            session_id="shared-session",
            success=False,
            error=f"{name} search quota exceeded",
        )
    return rows
