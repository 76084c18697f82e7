"""An agent lists memory page by page and forgets by id, scope (context, entity), age and
category, with a dry run and the count; a bulk forget is restorable item by item."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory import agent_tools
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db


def tool(user, name, arguments):
    return agent_tools.tool_call(user=user, name=name, arguments=arguments)


@pytest.fixture
def items(alice):
    made = {
        "launch": memory_create(
            user=alice, content="Launch moved to March", context="work", category="reminder"
        ),
        "db": memory_create(
            user=alice, content="Team wants PostgreSQL for users", context="work", category="fact"
        ),
        "sarah": memory_create(
            user=alice, content="Sarah Chen is the CTO", entity="person:sarah_chen"
        ),
        "tea": memory_create(user=alice, content="Likes green tea", category="preference"),
        "pin": memory_create(user=alice, content="Bank PIN hint: cat", sensitive=True),
    }
    old = timezone.now() - timedelta(days=90)
    KnowledgeItem.objects.filter(pk=made["launch"].pk).update(created_at=old)
    return made


def test_list_memories_pages_through_what_matches(alice, items):
    first = tool(alice, "list_memories", {"page_size": 2})["result"]
    assert first["count"] == 4 and len(first["results"]) == 2 and first["next_page"] == 2
    second = tool(alice, "list_memories", {"page_size": 2, "page": 2})["result"]
    assert len(second["results"]) == 2 and second["next_page"] is None
    seen = {r["id"] for r in first["results"] + second["results"]}
    assert items["pin"].pk not in seen  # private items only when asked for
    everything = tool(alice, "list_memories", {"include_sensitive": True})["result"]
    assert everything["count"] == 5


def test_list_memories_filters_by_context_entity_and_category(alice, items):
    work = tool(alice, "list_memories", {"context": "work"})["result"]
    assert {r["id"] for r in work["results"]} == {items["launch"].pk, items["db"].pk}
    about = tool(alice, "list_memories", {"entity": "person:sarah_chen"})["result"]
    assert [r["id"] for r in about["results"]] == [items["sarah"].pk]
    liked = tool(alice, "list_memories", {"category": "preference"})["result"]
    assert [r["content"] for r in liked["results"]] == ["Likes green tea"]
    bad = tool(alice, "list_memories", {"page_size": 1000})
    assert bad["ok"] is False and bad["error"]["code"] == "invalid_arguments"


def test_a_dry_run_counts_and_forgets_nothing(alice, items):
    counted = tool(alice, "forget", {"context": "work", "dry_run": True})["result"]
    assert counted == {
        "forgotten": False,
        "count": 2,
        "dry_run": True,
        "ids": sorted([items["launch"].pk, items["db"].pk]),
    }
    assert KnowledgeItem.objects.filter(forgotten_at__isnull=False).count() == 0


@pytest.mark.parametrize(
    ("arguments", "gone"),
    [
        ({"context": "work"}, {"launch", "db"}),
        ({"entity": "person:sarah_chen"}, {"sarah"}),
        ({"older_than": "30d"}, {"launch"}),
        ({"categories": ["preference"]}, {"tea"}),
        ({"context": "work", "categories": ["fact"]}, {"db"}),
        ({"older_than": "0h"}, {"launch", "db", "sarah", "tea", "pin"}),  # "wipe my memory"
    ],
)
def test_forget_by_scope_age_and_category(alice, items, arguments, gone):
    result = tool(alice, "forget", arguments)["result"]
    assert result["count"] == len(gone) and result["forgotten"] is True
    forgotten = set(
        KnowledgeItem.objects.filter(forgotten_at__isnull=False).values_list("pk", flat=True)
    )
    assert forgotten == {items[name].pk for name in gone} == set(result["ids"])


def test_the_forget_tool_tells_a_model_how_to_wipe_everything():
    [forget] = [t for t in agent_tools.tools_offered() if t["function"]["name"] == "forget"]
    assert 'older_than "0h"' in forget["function"]["description"]


def test_a_bulk_forget_is_restored_by_its_ids(alice, alice_api, items):
    ids = tool(alice, "forget", {"context": "work"})["result"]["ids"]
    for item_id in ids:
        assert alice_api.post(f"/api/v1/memories/{item_id}/restore/").status_code == 200
    assert tool(alice, "list_memories", {"context": "work"})["result"]["count"] == 2


@pytest.mark.parametrize(
    "arguments",
    [{}, {"id": 1, "context": "work"}, {"scope": "/project/old"}, {"older_than": "soon"}],
)
def test_a_forget_without_a_clear_target_is_refused(alice, items, arguments):
    result = tool(alice, "forget", arguments)
    assert result["ok"] is False and result["error"]["code"] in {"invalid_arguments", "invalid"}
    assert KnowledgeItem.objects.filter(forgotten_at__isnull=False).count() == 0


def test_the_rest_bulk_forget_takes_an_entity_and_answers_the_ids(alice_api, items):
    response = alice_api.post(
        "/api/v1/memories/forget/", {"entity": "person:sarah_chen"}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {"forgotten": 1, "dry_run": False, "ids": [items["sarah"].pk]}


def test_list_and_forget_over_mcp(alice_api, items):
    listed = mcp_tool(alice_api, "list_memories", {"context": "work"})["structuredContent"]
    assert listed["count"] == 2
    counted = mcp_tool(alice_api, "forget", {"older_than": "30d", "dry_run": True})
    assert counted["structuredContent"]["count"] == 1


def test_another_users_list_and_forget_never_reach_alice(alice, bob, items):
    assert tool(bob, "list_memories", {"include_sensitive": True})["result"]["count"] == 0
    result = tool(bob, "forget", {"context": "work"})["result"]
    assert result["count"] == 0
    assert tool(bob, "forget", {"id": items["tea"].pk})["error"]["code"] == "not_found"
    assert KnowledgeItem.objects.filter(forgotten_at__isnull=False).count() == 0
