"""Agents through the API: every write records the agent its token acts as, an agent's
default context takes the writes that name none, and the X-Gaia-Context header
overrides it for one request."""

import pytest
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.models import ToolCall, Turn
from learning import extraction
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
API = "/api/v1"
MEMORIES = f"{API}/memories/"


def client(user, agent: str, **headers: str) -> APIClient:
    _, secret = token_create(user=user, name=f"{agent}-token", agent_name=agent)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}", **headers)
    return api


def agent_of(user, name: str) -> Agent:
    return Agent.objects.get(owner=user, name=name)


def test_every_write_records_its_agent_and_shows_it(alice):
    mail = client(alice, "mail")
    remembered = mail.post(MEMORIES, {"content": "User's dentist is Dr Ruiz"}, format="json")
    assert remembered.status_code == 201 and remembered.json()["agent"] == "mail"
    turn = mail.post(
        f"{API}/conversations/turns/",
        {"session_id": "s1", "role": "user", "content": "hello there"},
        format="json",
    )
    assert turn.json()["agent"] == "mail"
    call = mail.post(f"{API}/tool-calls/", {"tool_name": "send_mail"}, format="json")
    assert call.status_code == 201 and call.json()["agent"] == "mail"
    tool = mail.post(
        f"{API}/tools/call/",
        {"name": "remember", "arguments": {"content": "User prefers short replies"}},
        format="json",
    ).json()
    assert tool["ok"] and tool["result"]["agent"] == "mail"
    by_mcp = mcp_tool(client(alice, "desktop"), "remember", {"content": "User uses Vim"})
    item = KnowledgeItem.objects.get(pk=by_mcp["structuredContent"]["id"])
    assert item.agent == agent_of(alice, "desktop")
    assert Turn.objects.get().agent == ToolCall.objects.get().agent == agent_of(alice, "mail")
    listed = mail.get(f"{API}/memories/").json()["results"]
    assert {r["content"]: r["agent"] for r in listed} == {
        "User's dentist is Dr Ruiz": "mail",
        "User prefers short replies": "mail",
        "User uses Vim": "desktop",
    }


def test_lists_and_recall_filter_by_agent(alice):
    mail, desk = client(alice, "mail"), client(alice, "desktop")
    mail.post(MEMORIES, {"content": "The quarterly report is due on Friday"}, format="json")
    desk.post(MEMORIES, {"content": "The quarterly budget report needs charts"}, format="json")
    only = mail.get(f"{API}/memories/", {"agent": "desktop"}).json()["results"]
    assert [r["content"] for r in only] == ["The quarterly budget report needs charts"]
    found = mail.post(
        f"{API}/memories/search/", {"query": "quarterly report", "agent": "mail"}, format="json"
    ).json()["results"]
    assert [r["content"] for r in found] == ["The quarterly report is due on Friday"]
    nobody = mail.post(
        f"{API}/memories/search/", {"query": "quarterly report", "agent": "nobody"}, format="json"
    ).json()["results"]
    assert nobody == []


def test_an_agents_default_context_takes_writes_that_name_none(alice):
    work = client(alice, "work-bot")
    agent = agent_of(alice, "work-bot")
    changed = work.patch(f"{API}/agents/{agent.pk}/", {"default_context": "work"}, format="json")
    assert changed.status_code == 200 and changed.json()["default_context"] == "work"
    stored = work.post(MEMORIES, {"content": "The standup is at 9:30"}, format="json").json()
    assert stored["context"] == "work"
    named = work.post(
        MEMORIES, {"content": "Gym on Tuesdays", "context": "personal"}, format="json"
    )
    assert named.json()["context"] == "personal"
    shared = work.post(
        MEMORIES, {"content": "User's name is Alice", "context": "global"}, format="json"
    )
    assert shared.json()["context"] == "global"
    tool = work.post(
        f"{API}/tools/call/",
        {"name": "remember", "arguments": {"content": "The office is in Porto"}},
        format="json",
    ).json()
    assert tool["result"]["context"] == "work"
    turn = work.post(
        f"{API}/conversations/turns/",
        {"session_id": "w", "role": "user", "content": "morning"},
        format="json",
    ).json()
    assert turn["context"] == "work"
    # Recall without a context searches the agent's context plus global, not the others.
    found = work.post(
        f"{API}/memories/search/",
        {"query": "standup gym name office", "top_k": 10, "min_relevance": 0},
        format="json",
    ).json()["results"]
    assert {r["context"] for r in found} == {"work", "global"}
    # Another agent of the same user keeps storing in global.
    other = client(alice, "phone").post(MEMORIES, {"content": "Call mum on Sunday"}, format="json")
    assert other.json()["context"] == "global"


def test_the_context_header_overrides_the_default_for_one_request(alice):
    agent_api = client(alice, "assistant", HTTP_X_GAIA_CONTEXT="personal")
    stored = agent_api.post(MEMORIES, {"content": "User runs on Sundays"}, format="json").json()
    assert stored["context"] == "personal"
    by_mcp = mcp_tool(agent_api, "remember", {"content": "User reads sci-fi"})
    assert by_mcp["structuredContent"]["context"] == "personal"
    too_long = client(alice, "x", HTTP_X_GAIA_CONTEXT="c" * 101)
    response = too_long.post(MEMORIES, {"content": "anything at all"}, format="json")
    assert response.status_code == 400
    assert "X-Gaia-Context" in response.json()["error"]["fields"]


def test_what_extraction_learns_from_a_turn_is_that_turns_agents(fake_llm, alice):
    mail = client(alice, "mail")
    turn_id = mail.post(
        f"{API}/conversations/turns/",
        {"session_id": "s", "role": "user", "content": "I moved to Lisbon with my dog Rex"},
        format="json",
    ).json()["id"]
    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User lives in Lisbon"}]}))
    extraction.extract_turn(turn_id=turn_id)
    learned = KnowledgeItem.objects.get(source="llm_extract")
    assert learned.agent == agent_of(alice, "mail")


def test_agents_list_marks_the_callers_and_patch_is_strict(alice):
    mail = client(alice, "mail")
    client(alice, "desktop")
    listed = mail.get(f"{API}/agents/").json()["results"]
    assert [(a["name"], a["current"]) for a in listed] == [("desktop", False), ("mail", True)]
    pk = agent_of(alice, "mail").pk
    unknown = mail.patch(f"{API}/agents/{pk}/", {"name": "renamed"}, format="json")
    assert unknown.status_code == 400
    no_type = mail.patch(f"{API}/agents/{pk}/", {"agent_type": "gmail_agent"}, format="json")
    assert no_type.status_code == 400
    AgentType.objects.create(name="gmail_agent")
    typed = mail.patch(f"{API}/agents/{pk}/", {"agent_type": "gmail_agent"}, format="json")
    assert typed.json()["agent_type"] == "gmail_agent"
    assert agent_of(alice, "mail").name == "mail"


@pytest.mark.cross_user("api-agents", "api-agent-detail")
def test_another_users_agents_are_invisible_and_unchangeable(alice, bob, bob_api):
    client(alice, "mail")
    alice_agent = agent_of(alice, "mail")
    missing = bob_api.get(f"{API}/agents/999999/")
    theirs = bob_api.get(f"{API}/agents/{alice_agent.pk}/")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json()
    patched = bob_api.patch(
        f"{API}/agents/{alice_agent.pk}/", {"default_context": "bobs"}, format="json"
    )
    assert patched.status_code == 404
    alice_agent.refresh_from_db()
    assert alice_agent.default_context == "global"
    names = [a["name"] for a in bob_api.get(f"{API}/agents/").json()["results"]]
    assert names == ["test-agent"]
    # bob cannot filter his way into alice's agent either
    client(alice, "mail").post(MEMORIES, {"content": "Alice's secret plan"}, format="json")
    assert bob_api.get(f"{API}/memories/", {"agent": "mail"}).json()["results"] == []
