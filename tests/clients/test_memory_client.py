"""MemoryClient against the real API (in process): typed results, errors as exceptions."""

import asyncio
import re
from datetime import datetime

import pytest
from gaia_memory import (
    AsyncMemoryClient,
    AuthenticationError,
    GaiaConnectionError,
    InvalidRequestError,
    Memory,
    MemoryClient,
    NotFoundError,
    RecallHit,
)

from accounts.models import AgentType
from conversations.models import ToolCall, Turn
from memory import services
from memory.models import KnowledgeItem
from skills.models import Skill
from tests.ports import HeldPort

pytestmark = pytest.mark.django_db


def test_remember_recall_update_and_forget_give_typed_results(memory, alice):
    stored = memory.remember("Alice's cat is called Miso", category="fact", entity="pet:miso")
    assert isinstance(stored, Memory) and stored.deduplicated is False
    assert isinstance(stored.created_at, datetime) and stored.created_at.tzinfo is not None
    assert KnowledgeItem.objects.for_user(alice).get().source == "tool"
    again = memory.remember("Alice's cat is called Miso", category="fact", entity="pet:miso")
    assert again.id == stored.id and again.deduplicated is True
    assert (stored.outcome, again.outcome) == ("new", "deduplicated")
    hits = memory.recall("what is the cat called", top_k=3)
    assert [type(h) for h in hits] == [RecallHit] and hits[0].id == stored.id
    assert hits[0].score > 0 and hits[0].matched_by and 0 < hits[0].relevance <= 1
    changed = memory.update(
        stored.id, content="Miso is Alice's grey cat", reason="colour", pinned=True
    )
    assert changed.content == "Miso is Alice's grey cat" and changed.pinned is True
    history = memory.history(stored.id)
    assert [(e["content"], e["reason"]) for e in history] == [
        ("Miso is Alice's grey cat", "colour"),
        ("Alice's cat is called Miso", ""),
    ]
    assert memory.forget(stored.id).forgotten_at is not None
    assert memory.recall("cat") == []


def test_the_apis_errors_are_exceptions_with_code_and_fields(memory, bob, in_process):
    with pytest.raises(InvalidRequestError) as refused:
        memory.remember("")
    assert refused.value.status == 400 and "content" in refused.value.fields
    theirs = services.memory_create(user=bob, content="Bob's secret")
    with pytest.raises(NotFoundError) as missing:
        memory.forget(theirs.pk)
    assert missing.value.code == "not_found"
    assert re.fullmatch(r"[0-9a-f]{32}", missing.value.request_id)  # what the server logged
    anonymous = MemoryClient("http://testserver", "gaia_wrong", http_client=in_process)
    with pytest.raises(AuthenticationError) as refused_token:
        anonymous.recall("secret")
    assert refused_token.value.request_id != missing.value.request_id


def test_turns_and_tool_calls_are_logged_and_searchable(memory, alice):
    turn = memory.log_turn("chat-1", "user", "I moved to Lisbon last spring")
    assert turn.session_id == "chat-1" and turn.role == "user"
    memory.log_turns(
        [
            {"session_id": "chat-1", "role": "assistant", "content": "Noted: Lisbon."},
            {"session_id": "chat-1", "role": "user", "content": "And I like fado"},
        ]
    )
    assert Turn.objects.for_user(alice).count() == 3
    found = memory.search_conversations("Lisbon spring")
    assert found[0].id == turn.id and found[0].session_id == "chat-1"
    logged = memory.log_tool_call(
        "web_search", args={"q": "fado"}, success=False, error="quota", duration_ms=12
    )
    assert (logged.tool_name, logged.success, logged.error) == ("web_search", False, "quota")
    assert [c.id for c in memory.tool_calls(success=False)] == [logged.id]
    assert ToolCall.objects.for_user(alice).get().duration_ms == 12


def test_prompt_material_and_the_tools_of_a_model(memory, alice):
    services.memory_create(user=alice, content="Prefers short answers", category="preference")
    assert "Prefers short answers" in memory.system_prompt()
    assert memory.dynamic_context(days=3).startswith("[Gaia Memory Context]")
    names = [tool["function"]["name"] for tool in memory.tools()]
    assert names == [
        "remember", "recall", "update_memory", "list_memories", "forget",
        "search_past_conversations", "recall_skills", "propose_skill", "relate",
    ]  # fmt: skip
    ok = memory.call_tool("recall", '{"query": "answers"}')
    assert ok.ok and ok.result["results"][0]["content"] == "Prefers short answers"
    bad = memory.call_tool("forget", {"id": 999999})
    assert not bad.ok and bad.error["code"] == "not_found"
    assert '"ok": false' in bad.for_model()


def test_an_unreachable_server_is_a_connection_error():
    with HeldPort() as port, pytest.raises(GaiaConnectionError):  # held: nothing listens
        MemoryClient(port.url, "gaia_x", timeout=2).recall("anything")


def test_the_base_url_is_the_servers_root_or_its_api_root(alice_token, in_process):
    for url in ("http://testserver", "http://testserver/", "http://testserver/api/v1/"):
        client = MemoryClient(url, alice_token, http_client=in_process)
        assert client.api_url == "http://testserver/api/v1/"
        assert client.recall("nothing stored") == []


@pytest.mark.django_db(transaction=True)
def test_the_async_client_does_the_same_over_real_http(live_server, alice_token):
    async def scenario() -> None:
        async with AsyncMemoryClient(live_server.url, alice_token) as memory:
            stored = await memory.remember("Alice plays the cello", category="skill")
            hits = await memory.recall("who plays the cello")
            assert [h.id for h in hits] == [stored.id]
            with pytest.raises(NotFoundError):
                await memory.update(stored.id + 1000, content="x")
            assert "[Gaia Memory Context]" in await memory.dynamic_context()

    asyncio.run(scenario())


def test_agents_their_default_context_and_skills_through_the_client(memory, alice):
    [agent] = memory.agents()
    assert agent["current"] is True
    kind = AgentType.objects.create(name="gmail_agent")
    changed = memory.update_agent(agent["id"], default_context="work", agent_type="gmail_agent")
    assert (changed["default_context"], changed["agent_type"]) == ("work", "gmail_agent")
    assert memory.remember("The standup is at 9:30").context == "work"
    assert memory.recall_skills("archive old newsletters") == []
    Skill.objects.create(
        agent_type=kind,
        status="approved",
        trigger="When the user asks to archive old newsletters",
        procedure="Search by label, then archive in batches.",
    )
    [hit] = memory.recall_skills("archive old newsletters")
    assert hit["skill"]["trigger"].startswith("When the user asks to archive")
