"""Skill memory end to end, as seed 001 describes it and issue #19 asks: two users'
agents of one type each run a session with tool calls; a model (the stand-in) proposes
skills, the scrubber takes both users' details out, staff approve one in the admin, and
a third user's agent of that type finds it with `recall_skills` and in its system prompt.
An agent of another type, or of none, finds nothing. A skill whose trigger names
someone is kept with the name scrubbed."""

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from memory import services
from skills.models import Skill, SkillContribution
from skills.services import agent_trust
from skills.tasks import learn_skills
from tests.learning import stand_in

pytestmark = pytest.mark.django_db
API = "/api/v1"
ASKED = {
    "alice": "Please email the quarterly report to my manager",
    "bob": "Forward the latest invoice to accounting",
}
PERSONAL = {
    "alice": "Send the Q3 report to Sarah Chen at sarah.chen@acme-corp.com, she is in Lisbon "
    "until 14 March; her phone is +351 912 345 678",
    "bob": "Forward Dmitri Volkov's invoice INV-20931 to accounts@volkov.de and cc Hamburg",
}
DETAILS = [
    "sarah", "chen", "acme", "lisbon", "351", "912", "dmitri", "volkov", "20931",
    "hamburg", "alice", "bob", "q3", "14",
]  # fmt: skip


def agent_api(user, agent: str, agent_type: str | None) -> tuple[APIClient, Agent]:
    token, secret = token_create(user=user, name=f"{agent}-laptop", agent_name=agent)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    if agent_type:
        changed = api.patch(
            f"{API}/agents/{token.agent_id}/", {"agent_type": agent_type}, format="json"
        )
        assert changed.status_code == 200, changed.content
    return api, token.agent


def run_session(api: APIClient, session_id: str, said: list[str], queued: list) -> int:
    turns = [{"session_id": session_id, "role": "user", "content": text} for text in said]
    turns.append({"session_id": session_id, "role": "assistant", "content": "Done, I sent it."})
    logged = api.post(f"{API}/conversations/turns/", turns, format="json")
    assert logged.status_code == 201
    for name, ok, error in (
        ("GMAIL_SEARCH_MESSAGES", True, ""),
        ("GMAIL_SEND_EMAIL", False, "Recipient address rejected: 550"),
        ("GMAIL_SEND_EMAIL", True, ""),
    ):
        call = {"tool_name": name, "session_id": session_id, "success": ok, "error": error,
                "args": {"to": "someone@example.org", "subject": said[-1][:40]}}  # fmt: skip
        assert api.post(f"{API}/tool-calls/", call, format="json").status_code == 201
    queued.clear()
    done = api.post(f"{API}/conversations/sessions/{session_id}/consolidate/")
    assert done.status_code == 200, done.content
    [(func, args)] = [q for q in queued if q[0] == "skills.tasks.learn_skills"]
    return args[0]


@pytest.fixture
def staff_web(django_user_model) -> Client:
    staff = django_user_model.objects.create_user("staff", "s@example.org", "pw", is_staff=True)
    staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    return client


def test_two_users_teach_a_skill_staff_approve_it_a_third_users_agent_uses_it(
    fake_llm, queued, alice, bob, charlie, staff_web
):
    fake_llm.then(stand_in.replies())
    registered = staff_web.post(
        "/admin/accounts/agenttype/add/", {"name": "gmail_agent", "description": "Gmail"}
    )
    assert registered.status_code == 302 and AgentType.objects.filter(name="gmail_agent").exists()
    AgentType.objects.create(name="twitter_agent")
    services.memory_create(
        user=alice, content="User's manager is Sarah", entity="person:sarah_chen"
    )
    alice_api, _ = agent_api(alice, "mail", "gmail_agent")
    bob_api, _ = agent_api(bob, "inbox", "gmail_agent")

    for api, user, session in ((alice_api, "alice", "a1"), (bob_api, "bob", "b1")):
        said = [ASKED[user], PERSONAL[user]]
        result = learn_skills(run_session(api, session, said, queued))
        assert result["status"] == "done" and result.get("proposed") == 1, result
    # The stand-in's trigger names Sarah Chen this time: scrubbed, it is the procedure
    # alice's agent already taught (not a second skill, and not dropped).
    again = learn_skills(run_session(alice_api, "a2", [PERSONAL["alice"]], queued))
    assert again == {"status": "done", "agent_type": "gmail_agent", "known": 1}

    skills = list(Skill.objects.order_by("pk"))
    assert [s.status for s in skills] == ["proposed", "proposed"]
    for skill in skills:  # scrubbed of both users' details, every field
        text = " ".join(
            [skill.trigger, skill.procedure, skill.what_didnt_work, skill.optimal_approach,
             *skill.tools_used]
        ).lower()  # fmt: skip
        assert not [d for d in DETAILS if re.search(rf"\b{d}\b", text)], text
        assert "@" not in text and skill.scrubbed > 0
        assert skill.tools_used == ["GMAIL_SEARCH_MESSAGES", "GMAIL_SEND_EMAIL"]
        assert "550" not in skill.what_didnt_work  # numbers go too
    assert SkillContribution.objects.count() == 2  # they know whence

    # Nothing proposed reaches anyone before staff approve it.
    charlie_api, _ = agent_api(charlie, "mailer", "gmail_agent")
    ask = {"name": "recall_skills", "arguments": {"query": "send a report by email"}}
    assert charlie_api.post(f"{API}/tools/call/", ask, format="json").json()["result"] == {
        "results": []
    }

    approved = staff_web.post(
        "/admin/skills/skill/",
        {"action": "approve_skills", "_selected_action": [skills[0].pk]},
    )
    assert approved.status_code == 302
    skills[0].refresh_from_db()
    assert skills[0].status == "approved" and skills[0].reviewed_by.username == "staff"
    kept = SkillContribution.objects.filter(skill=skills[0])  # so alice's erase reaches it
    assert [(c.owner, c.kind) for c in kept] == [(alice, "learned")]

    found = charlie_api.post(f"{API}/tools/call/", ask, format="json").json()["result"]["results"]
    assert [r["id"] for r in found] == [skills[0].pk]
    assert found[0]["tools_used"] == ["GMAIL_SEARCH_MESSAGES", "GMAIL_SEND_EMAIL"]
    searched = charlie_api.post(f"{API}/skills/search/", {"query": "email a report"}, format="json")
    assert searched.json()["agent_type"] == "gmail_agent"
    assert [h["skill"]["id"] for h in searched.json()["results"]] == [skills[0].pk]
    prompt = charlie_api.get(f"{API}/prompt/system/").json()["prompt"]
    assert "## Learned procedures (gmail_agent)" in prompt
    assert '"GMAIL_SEARCH_MESSAGES"' in prompt and "(reviewed by staff)" in prompt

    other_api, _ = agent_api(charlie, "tweeter", "twitter_agent")
    untyped_api, _ = agent_api(charlie, "plain", None)
    for api in (other_api, untyped_api):
        assert api.post(f"{API}/tools/call/", ask, format="json").json()["result"] == {
            "results": []
        }
        assert "Learned procedures" not in api.get(f"{API}/prompt/system/").json()["prompt"]
        assert api.post(f"{API}/skills/{skills[0].pk}/validate/").status_code == 404


def test_a_known_skill_is_validated_not_stored_twice(
    fake_llm, queued, alice, bob, django_user_model
):
    fake_llm.then(stand_in.replies())
    kind = AgentType.objects.create(name="gmail_agent", auto_approve_skills=True)
    alice_api, alice_agent = agent_api(alice, "mail", kind.name)
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    agent_trust(agent=Agent.objects.get(pk=alice_agent.pk), by=staff)
    asked = ["Please send the weekly report to the team by email"]
    assert learn_skills(run_session(alice_api, "a1", asked, queued))["approved"] == 1
    skill = Skill.objects.get()
    assert (skill.status, skill.times_validated, skill.reviewed_by) == ("approved", 0, None)
    assert skill.confidence == 0.5  # the model said 0.6: a proposal starts at 0.5 at most
    assert [c.owner for c in SkillContribution.objects.all()] == [alice]
    bob_api, _ = agent_api(bob, "inbox", kind.name)
    assert learn_skills(run_session(bob_api, "b1", asked, queued))["validated"] == 1
    skill.refresh_from_db()
    assert Skill.objects.count() == 1 and skill.times_validated == 1
    assert skill.confidence == pytest.approx(0.5 + 0.5 * 0.1)
    assert learn_skills(run_session(bob_api, "b2", asked, queued)) == {
        "status": "done", "agent_type": "gmail_agent", "known": 1
    }  # fmt: skip
    skill.refresh_from_db()
    assert skill.times_validated == 1  # bob counts once


def test_sessions_without_a_typed_agent_or_tool_calls_teach_nothing(fake_llm, queued, alice):
    fake_llm.then(stand_in.replies())
    untyped, _ = agent_api(alice, "plain", None)
    untyped.post(
        f"{API}/conversations/turns/",
        {"session_id": "s1", "role": "user", "content": "Send the report to the team"},
        format="json",
    )
    untyped.post(f"{API}/tool-calls/", {"tool_name": "X", "session_id": "s1"}, format="json")
    queued.clear()
    untyped.post(f"{API}/conversations/sessions/s1/consolidate/")
    assert not [q for q in queued if q[0] == "skills.tasks.learn_skills"]
    assert Skill.objects.count() == 0
