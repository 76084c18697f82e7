"""The distilled profile block: cached per generation, raw list when the LLM fails."""

import pytest

from learning import profile
from learning.models import ProfileCache
from memory.services import memory_create
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


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
