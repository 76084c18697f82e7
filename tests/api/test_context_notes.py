"""Seed 004's per-message injection: `prompt/context` with `notes` and the user's message
as `query` carries the diary notes of earlier conversations that recall ranks first for
it; without `notes` it is as before."""

from datetime import date

import pytest

from accounts.services import user_settings_update
from memory.agent_prompt import NOTES_HEADING
from memory.services import memory_create, memory_session_note
from tests.mcp_rpc import mcp_result

pytestmark = pytest.mark.django_db
CONTEXT = "/api/v1/prompt/context/"


@pytest.fixture
def diary(alice):
    kept = memory_session_note(
        user=alice,
        session_id="s-boat",
        content="Talked about repainting the sailing boat's hull in antifouling blue",
        context="global",
        source_turn=None,
        first=date(2026, 11, 2),
        last=date(2026, 11, 2),
    )
    memory_session_note(
        user=alice,
        session_id="s-tax",
        content="Went through the tax return deadlines for the freelance income",
        context="global",
        source_turn=None,
        first=date(2026, 11, 9),
        last=date(2026, 11, 9),
    )
    memory_create(user=alice, content="The boat is moored in Sesimbra", category="fact")
    return kept


def test_the_notes_that_bear_on_the_message_are_injected(alice_api, diary):
    params = {"notes": 1, "query": "what colour was I going to paint the boat hull?"}
    text = alice_api.get(CONTEXT, params).json()["context"]
    assert NOTES_HEADING in text
    assert "antifouling blue" in text and f"(id: {diary.pk})" in text
    assert "tax return" not in text  # one note asked for: the one that bears on it
    assert "Sesimbra" not in text  # notes only, not facts


def test_without_notes_the_context_is_time_and_due_items(alice_api, diary):
    text = alice_api.get(CONTEXT, {"query": "paint the boat hull"}).json()["context"]
    assert NOTES_HEADING not in text and "antifouling" not in text


def test_no_notes_are_injected_while_memory_is_off(alice, alice_api, diary):
    user_settings_update(user=alice, memory_enabled=False)
    text = alice_api.get(CONTEXT, {"notes": 3, "query": "paint the boat hull"}).json()["context"]
    assert "antifouling" not in text and "memory is off" in text.lower()


def test_another_users_notes_never_come(bob_api, diary):
    text = bob_api.get(CONTEXT, {"notes": 3, "query": "paint the boat hull"}).json()["context"]
    assert "antifouling" not in text


@pytest.mark.parametrize("params", [{"notes": 11}, {"notes": -1}, {"query": "x" * 2001}])
def test_out_of_range_notes_are_a_400(alice_api, params):
    assert alice_api.get(CONTEXT, params).status_code == 400


def test_the_mcp_turn_context_prompt_carries_the_notes_too(alice_api, diary):
    arguments = {"notes": "1", "query": "what colour was I going to paint the boat hull?"}
    answer = mcp_result(
        alice_api, "prompts/get", {"name": "memory-context", "arguments": arguments}
    )
    text = answer["messages"][0]["content"]["text"]
    assert NOTES_HEADING in text and "antifouling blue" in text
