"""A few stored rows for the API tests. The error-shape helper lives in tests/support.py
(re-exported here for test modules that still import it from this place)."""

import pytest

from conversations.services.recording import tool_call_record, turn_append
from memory import services
from tests.support import assert_error  # noqa: F401


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
