"""Seed 001's analytics: `stats/` (and the dashboard, and the admin for staff) count this
week's searches, memories used and skills applied, and the skills a person's agents
helped learn by agent type with their average confidence."""

import pytest
from django.test import Client

from accounts.models import AgentType
from accounts.services import token_create
from conversations.services.recording import turn_append
from memory import agent_tools
from memory.models import UsageDay
from memory.services import memory_create
from skills.models import Skill
from skills.reflect import skill_reflect
from skills.services import skill_review

pytestmark = pytest.mark.django_db
STATS = "/api/v1/stats/"
REFLECTION = {
    "trigger": "When the user asks to forward an invoice to accounting",
    "procedure": "Search the invoice, forward it, confirm to the user.",
    "tools_used": ["GMAIL_SEARCH_MESSAGES", "GMAIL_FORWARD"],
}


def test_searches_and_memories_used_are_counted_on_every_door(alice, alice_api):
    memory_create(user=alice, content="Alice keeps bees on her roof")
    memory_create(user=alice, content="Alice sells honey at the market")
    alice_api.post("/api/v1/memories/search/", {"query": "bees honey"}, format="json")
    agent_tools.tool_call(user=alice, name="recall", arguments={"query": "roof bees"})
    agent_tools.tool_call(user=alice, name="recall", arguments={"query": "violin lessons"})
    usage = alice_api.get(STATS).json()["usage"]
    assert usage["searches_this_week"] == 3
    assert usage["memories_used_this_week"] >= 2  # the hits each recall handed over
    assert sum(day["searches"] for day in usage["by_day"].values()) == 3


def test_skills_learned_and_applied_show_in_stats(alice, bob, alice_api):
    agent_type = AgentType.objects.create(name="gmail_agent")
    token, secret = token_create(user=alice, name="mail", agent_name="mail")
    token.agent.agent_type = agent_type
    token.agent.save()
    turn_append(user=alice, session_id="run-1", role="user", content="Forward the invoice")
    assert skill_reflect(
        user=alice, agent=token.agent, session_id="run-1", reflection=REFLECTION
    ) == ("proposed")
    staff = type(alice).objects.create_user("staff", is_staff=True)
    skill_review(skill_id=Skill.objects.get().pk, reviewer=staff, approve=True)
    applied = agent_tools.tool_call(
        user=alice, name="recall_skills", arguments={"query": "forward invoice"}, token=token
    )
    assert len(applied["result"]["results"]) == 1
    body = alice_api.get(STATS).json()
    assert body["skills"]["total"] == 1 and body["skills"]["by_agent_type"] == {"gmail_agent": 1}
    assert body["skills"]["avg_confidence"] == 0.5
    assert body["usage"]["skills_applied_this_week"] == 1
    bob_stats = Client()
    bob_stats.force_login(bob)
    assert bob_stats.get(STATS).json()["skills"]["total"] == 0  # alice's agents taught it
    assert not UsageDay.objects.filter(owner=bob).exists()


def test_the_dashboard_and_the_admin_show_the_analytics(alice, django_user_model):
    memory_create(user=alice, content="Alice keeps bees on her roof")
    agent_tools.tool_call(user=alice, name="recall", arguments={"query": "bees"})
    web = Client()
    web.force_login(alice)
    page = web.get("/").content.decode()
    assert "Searches" in page and "Skills learned" in page
    AgentType.objects.create(name="gmail_agent")
    staff = django_user_model.objects.create_user("boss", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    assert admin.get("/admin/skills/skill/").status_code == 200
    usage = admin.get("/admin/memory/usageday/")
    assert usage.status_code == 200 and "searches" in usage.content.decode()


def test_stats_say_when_memory_last_changed(alice, bob, alice_api):
    assert alice_api.get(STATS).json()["knowledge"]["last_updated"] is None  # nothing yet
    item = memory_create(user=alice, content="Alice keeps bees on her roof")
    memory_create(user=bob, content="Bob keeps pigeons")  # later, and not hers
    said = alice_api.get(STATS).json()["knowledge"]["last_updated"]
    item.refresh_from_db()
    assert said == item.updated_at.isoformat()
