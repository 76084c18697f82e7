"""Seed 001's self-reflection: the agent that ran a session proposes the skill it learned
(`propose_skill`) at the end of the run; it is scrubbed and reviewed like a model's."""

import pytest
from rest_framework.test import APIClient

from accounts.models import AgentType
from accounts.services import token_create, user_settings_update
from conversations.services.recording import turn_append
from skills.models import Skill
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
CALL = "/api/v1/tools/call/"
REFLECTION = {
    "session_id": "run-7",
    "trigger": "When Sarah Chen asks to send the quarterly report",
    "procedure": "Search the thread first, attach the latest report, then send it.",
    "tools_used": ["GMAIL_SEARCH_MESSAGES", "GMAIL_SEND_EMAIL"],
    "what_didnt_work": "Replying without the thread felt abrupt.",
    "Gotchas": "Check for sarah.chen@acme-corp.com typos",  # a model's casing, a detail
    "confidence": 0.95,
}


def agent_api(user, agent_type: str | None) -> APIClient:
    token, secret = token_create(user=user, name="mail-laptop", agent_name="mail")
    if agent_type:
        token.agent.agent_type = AgentType.objects.get_or_create(name=agent_type)[0]
        token.agent.save()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


def propose(api: APIClient, arguments: dict) -> dict:
    response = api.post(CALL, {"name": "propose_skill", "arguments": arguments}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def run(alice):
    turn_append(user=alice, session_id="run-7", role="user", content="Send Sarah Chen the report")


def test_an_agent_proposes_what_it_learned_and_it_waits_for_review(alice, run):
    answer = propose(agent_api(alice, "gmail_agent"), REFLECTION)
    assert answer["ok"] is True and answer["result"] == {"outcome": "proposed", "review": True}
    skill = Skill.objects.get()
    assert skill.status == "proposed" and skill.agent_type.name == "gmail_agent"
    assert skill.trigger.startswith("When <name>")  # kept, scrubbed
    assert skill.trigger.endswith("asks to send the quarterly report")
    assert "sarah" not in skill.trigger.lower() and "chen" not in skill.trigger.lower()
    assert "sarah" not in skill.gotchas.lower() and "acme" not in skill.gotchas.lower()
    assert skill.confidence <= 0.5  # not what the agent said of itself
    assert skill.scrubbed >= 2


def test_the_same_reflection_again_is_not_a_second_skill(alice, run):
    api = agent_api(alice, "gmail_agent")
    propose(api, REFLECTION)
    again = propose(api, REFLECTION)
    assert again["result"]["outcome"] == "known" and Skill.objects.count() == 1


@pytest.mark.parametrize(
    ("agent_type", "arguments", "code"),
    [
        (None, REFLECTION, "no_agent_type"),
        ("gmail_agent", {**REFLECTION, "session_id": "nope"}, "not_found"),
        ("gmail_agent", {"session_id": "run-7", "trigger": "When asked"}, "invalid_arguments"),
        ("gmail_agent", {**REFLECTION, "owner": 1}, "invalid_arguments"),
    ],
)
def test_a_reflection_it_cannot_take_is_a_readable_error(alice, run, agent_type, arguments, code):
    answer = propose(agent_api(alice, agent_type), arguments)
    assert answer["ok"] is False and answer["error"]["code"] == code
    assert not Skill.objects.exists()


def test_nothing_is_learned_while_memory_is_off(alice, run):
    user_settings_update(user=alice, memory_enabled=False)
    answer = propose(agent_api(alice, "gmail_agent"), REFLECTION)
    assert answer["error"]["code"] == "memory_disabled" and not Skill.objects.exists()


def test_an_agent_cannot_reflect_on_another_users_session(alice, bob, run):
    answer = propose(agent_api(bob, "gmail_agent"), REFLECTION)
    assert answer["error"]["code"] == "not_found" and not Skill.objects.exists()


def test_it_is_offered_over_mcp(alice, run):
    result = mcp_tool(agent_api(alice, "gmail_agent"), "propose_skill", REFLECTION)
    assert result["structuredContent"]["outcome"] == "proposed"
