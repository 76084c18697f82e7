"""Memory off (Settings) is session-only on every door: nothing stored is recalled,
listed to an agent, profiled or put in a prompt, and the prompt says memory is off;
turning it on again brings everything back as it was."""

import pytest

from accounts.services import user_settings_update
from conversations.services.recording import turn_append
from learning import profile
from memory import agent_prompt, agent_tools
from memory.recall import recall
from memory.services import memory_create
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(alice):
    memory_create(user=alice, content="Alice plays the cello in an orchestra", category="fact")
    memory_create(user=alice, content="Prefers answers in bullet points", category="preference")
    turn_append(user=alice, session_id="s1", role="user", content="My cello teacher is Ilse")


def tool(user, name, arguments):
    return agent_tools.tool_call(user=user, name=name, arguments=arguments)


def test_with_memory_off_no_door_recalls_or_lists_what_is_stored(alice, alice_api, stored):
    user_settings_update(user=alice, memory_enabled=False)
    assert list(recall(user=alice, query="cello")) == []
    rest = alice_api.post("/api/v1/memories/search/", {"query": "cello"}, format="json")
    assert rest.status_code == 200 and rest.json()["results"] == []
    assert rest.json()["judge_note"] == "memory off"
    recalled = tool(alice, "recall", {"query": "cello"})["result"]
    assert recalled["results"] == [] and recalled["memory"] == "off"
    listed = tool(alice, "list_memories", {})["result"]
    assert listed["results"] == [] and listed["count"] == 0 and listed["memory"] == "off"
    turns = tool(alice, "search_past_conversations", {"query": "cello teacher"})["result"]
    assert turns["results"] == []
    searched = alice_api.post(
        "/api/v1/conversations/search/", {"query": "cello teacher"}, format="json"
    ).json()
    assert searched["results"] == [] and searched["judge_note"] == "memory off"
    over_mcp = mcp_tool(alice_api, "recall", {"query": "cello"})["structuredContent"]
    assert over_mcp["results"] == []


def test_with_memory_off_the_prompts_say_so_and_show_nothing_stored(alice, alice_api, stored):
    user_settings_update(user=alice, memory_enabled=False)
    system = alice_api.get("/api/v1/prompt/system/").json()["prompt"]
    assert "MEMORY: OFF" in system and "session-only" in system
    assert "call `remember` immediately" not in system and "cello" not in system
    turn = alice_api.get("/api/v1/prompt/context/").json()["context"]
    assert "Current time:" in turn and agent_prompt.MEMORY_OFF_TURN in turn
    served = alice_api.get("/api/v1/prompt/profile/").json()
    assert served["bullets"] == [] and served["profile"] == profile.OFF
    assert "cello" not in served["profile"]


def test_with_memory_off_an_agent_cannot_store(alice, stored):
    result = tool(alice, "remember", {"content": "Alice's stand partner is Joaquín"})
    assert result["ok"] is True
    user_settings_update(user=alice, memory_enabled=False)
    refused = tool(alice, "remember", {"content": "Alice's stand partner moved to Ghent"})
    assert refused["ok"] is False and refused["error"]["code"] == "memory_disabled"


def test_turning_memory_on_again_resumes_with_everything_kept(alice, alice_api, stored):
    user_settings_update(user=alice, memory_enabled=False)
    assert list(recall(user=alice, query="cello")) == []
    user_settings_update(user=alice, memory_enabled=True)
    hits = recall(user=alice, query="cello orchestra")
    assert [h.item.content for h in hits][:1] == ["Alice plays the cello in an orchestra"]
    system = alice_api.get("/api/v1/prompt/system/").json()["prompt"]
    assert "Prefers answers in bullet points" in system and "MEMORY: OFF" not in system
    assert tool(alice, "list_memories", {})["result"]["count"] == 2
    searched = alice_api.post(
        "/api/v1/conversations/search/", {"query": "cello teacher", "min_relevance": 0},
        format="json",
    ).json()  # fmt: skip
    assert [t["content"] for t in searched["results"]] == ["My cello teacher is Ilse"]


def test_one_persons_memory_off_leaves_anothers_on(alice, bob, stored):
    memory_create(user=bob, content="Bob plays the cello too", category="fact")
    user_settings_update(user=alice, memory_enabled=False)
    assert [h.item.content for h in recall(user=bob, query="cello")] == ["Bob plays the cello too"]


def test_with_memory_off_no_profile_refresh_is_queued_or_run(alice, stored, settings):
    settings.GAIA_LLM_URL = "http://127.0.0.1:9/v1"
    user_settings_update(user=alice, memory_enabled=False)
    assert profile.profile_refresh(user=alice)["status"] == "skipped"
