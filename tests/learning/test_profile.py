"""The distilled profile block: cached per generation, raw list when the LLM fails."""

from datetime import date

import pytest
from rest_framework.test import APIClient

from accounts.agents import agent_update
from accounts.services import token_create
from learning import profile, tasks
from learning.models import ProfileCache
from memory.lineage import memory_supersede_by
from memory.services import memory_create, memory_session_note, memory_update
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
PROFILE = "/api/v1/prompt/profile/"


def test_without_a_distilled_profile_it_serves_the_raw_list_and_queues_a_refresh(
    fake_llm, alice, queued
):
    memory_create(user=alice, content="User is a violinist", confidence=0.9)
    memory_create(user=alice, content="User's bank PIN hint", sensitive=True)
    view = profile.profile_get(user=alice)
    assert view["source"] == "raw" and view["bullets"] == ["User is a violinist"]
    assert view["profile"].startswith(profile.HEADER)
    assert queued == [("learning.tasks.profile_refresh", (alice.pk,))]


def test_a_refresh_caches_the_distilled_profile_until_memory_changes(fake_llm, alice, queued):
    memory_create(user=alice, content="User is a violinist")
    fake_llm.then(f.answer({"bullets": ["Violinist", "Lives in Lisbon"]}))
    assert profile.profile_refresh(user=alice) == {"status": "done", "bullets": 2}
    view = profile.profile_get(user=alice)
    assert (view["source"], view["stale"], view["bullets"]) == (
        "llm",
        False,
        ["Violinist", "Lives in Lisbon"],
    )
    assert profile.profile_refresh(user=alice) == {"status": "fresh"}
    memory_create(user=alice, content="User adopted a cat")
    stale = profile.profile_get(user=alice)
    assert stale["stale"] is True and stale["bullets"] == ["Violinist", "Lives in Lisbon"]
    assert len(fake_llm.requests) == 1


def test_an_llm_failure_keeps_the_raw_list(fake_llm, alice, queued):
    memory_create(user=alice, content="User is a violinist")
    fake_llm.then(f.content("Sorry, I cannot write a profile."))  # asked again: the same
    assert profile.profile_refresh(user=alice)["status"] == "failed"
    assert not ProfileCache.objects.exists()
    assert profile.profile_get(user=alice)["source"] == "raw"


def test_an_empty_memory_says_so(no_llm, alice):
    view = profile.profile_get(user=alice)
    assert view["bullets"] == [] and view["profile"] == profile.EMPTY


def test_profiles_are_per_user(fake_llm, alice, bob, queued):
    memory_create(user=alice, content="User is a violinist")
    memory_create(user=bob, content="Bob is a drummer")
    fake_llm.then(f.answer({"bullets": ["Violinist"]}))
    profile.profile_refresh(user=alice)
    assert "Bob is a drummer" not in fake_llm.requests[0]["messages"][1]["content"]
    assert profile.profile_get(user=bob)["bullets"] == ["Bob is a drummer"]


def _agent_client(user, name: str, default_context: str) -> APIClient:
    token, secret = token_create(user=user, name=name)
    agent_update(user=user, agent_id=token.agent_id, default_context=default_context)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def test_a_context_profile_is_distilled_from_that_context_and_global(fake_llm, alice, queued):
    memory_create(user=alice, content="User is a violinist")
    memory_create(user=alice, content="User leads the payments team", context="work")
    memory_create(user=alice, content="User collects stamps", context="personal")
    assert profile.profile_get(user=alice, context="work")["source"] == "raw"
    assert queued[-1] == ("learning.tasks.profile_refresh", (alice.pk, "work"))

    fake_llm.then(f.answer({"bullets": ["Violinist", "Leads payments"]}))
    assert tasks.profile_refresh(alice.pk, "work") == {"status": "done", "bullets": 2}

    asked = fake_llm.requests[0]["messages"][1]["content"]
    assert "payments" in asked and "violinist" in asked and "stamps" not in asked
    work = profile.profile_get(user=alice, context="work")
    assert (work["source"], work["stale"], work["bullets"]) == (
        "llm",
        False,
        ["Violinist", "Leads payments"],
    )
    assert profile.profile_get(user=alice)["source"] == "raw"  # every context: its own


def test_an_agent_gets_the_profile_of_its_default_context(fake_llm, alice, queued):
    memory_create(user=alice, content="User leads the payments team", context="work")
    memory_create(user=alice, content="User collects stamps", context="personal")
    work_agent = _agent_client(alice, "work-bot", "work")

    raw = work_agent.get(PROFILE).json()
    assert raw["bullets"] == ["User leads the payments team"]
    fake_llm.then(f.answer({"bullets": ["Leads the payments team"]}))
    profile.profile_refresh(user=alice, context="work")
    body = work_agent.get(PROFILE).json()
    assert (body["source"], body["bullets"]) == ("llm", ["Leads the payments team"])
    named = work_agent.get(PROFILE, {"context": "personal"}).json()
    assert named["bullets"] == ["User collects stamps"]


def test_identity_leads_the_profile_above_agent_trivia(no_llm, alice):
    for n in range(12):
        memory_create(user=alice, content=f"User tried café number {n} in town", source="tool")
    memory_create(user=alice, content="User's name is Alice Moreau", source="llm_extract")
    memory_create(user=alice, content="User works at Acme as a nurse", source="llm_extract")
    memory_create(user=alice, content="User's daughter is called Inês", source="consolidation")
    bullets = profile.profile_get(user=alice)["bullets"]
    assert sorted(bullets[:3]) == [
        "User works at Acme as a nurse",
        "User's daughter is called Inês",
        "User's name is Alice Moreau",
    ]


def test_diary_notes_and_replaced_text_never_become_bullets(fake_llm, alice, queued):
    porto = memory_create(user=alice, content="User lives in Porto")
    memory_update(user=alice, item_id=porto.pk, content="User lives in Lisbon")
    old = memory_create(user=alice, content="User drives a red car")
    new = memory_create(user=alice, content="User drives a blue car")
    memory_supersede_by(user=alice, item_id=old.pk, by_id=new.pk)
    memory_session_note(
        user=alice,
        session_id="chat-1",
        content="Conversation chat-1 (2026-03-02): user said they live in Porto",
        context="global",
        source_turn=None,
        first=date(2026, 3, 2),
        last=date(2026, 3, 2),
    )
    memory_create(user=alice, content="Remember to water the plants", category="note")

    raw = profile.profile_get(user=alice)["bullets"]
    assert sorted(raw) == ["User drives a blue car", "User lives in Lisbon"]
    fake_llm.then(f.answer({"bullets": ["Lives in Lisbon"]}))
    profile.profile_refresh(user=alice)
    asked = fake_llm.requests[0]["messages"][1]["content"]
    assert "Porto" not in asked and "red car" not in asked and "plants" not in asked


def test_a_change_queues_one_refresh_however_often_the_profile_is_read(fake_llm, alice, queued):
    # Seconds after a change, not minutes: each new generation queues its refresh once.
    memory_create(user=alice, content="User is a violinist")
    fake_llm.then(f.answer({"bullets": ["Violinist"]}))
    for _ in range(3):
        profile.profile_get(user=alice)
    assert len(queued) == 1
    tasks.profile_refresh(alice.pk)
    memory_create(user=alice, content="User moved to Porto")
    for _ in range(3):
        assert profile.profile_get(user=alice)["stale"] is True
    assert len(queued) == 2
    fake_llm.then(f.answer({"bullets": ["Violinist", "Lives in Porto"]}))
    tasks.profile_refresh(alice.pk)
    fresh = profile.profile_get(user=alice)
    assert fresh["stale"] is False and fresh["bullets"] == ["Violinist", "Lives in Porto"]
    assert len(fake_llm.requests) == 2 and len(queued) == 2
