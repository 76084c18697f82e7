"""`queries` and `time_read` on every door of recall and conversation search: REST, the
tool endpoint, MCP, and mem0's search."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.services.recording import turns_append_many
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
SEARCH = "/api/v1/memories/search/"
TURNS = "/api/v1/conversations/search/"
CALL = "/api/v1/tools/call/"

FACTS = [
    "User's dentist is Dr Emeka Okoro at Clifton Smile Studio",
    "User has a beagle called Biscuit",
    "User's partner Jonas teaches physics",
    "User drinks oat milk in coffee",
]


@pytest.fixture
def facts(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return {text: memory_create(user=alice, content=text, source="user").pk for text in FACTS}


def test_rest_recall_fuses_the_callers_phrasings(alice_api, facts):
    asked = {"query": "Who looks after my teeth?"}
    phrased = {**asked, "queries": ["user's dentist", "User's dentist is Dr"]}
    fused = alice_api.post(SEARCH, phrased, format="json")
    assert fused.status_code == 200, fused.content
    body = fused.json()
    assert body["results"][0]["id"] == facts[FACTS[0]]
    assert body["time_read"] is None


@pytest.mark.parametrize(
    "queries", [["a"] * 5, "not a list", [{"q": 1}], ["x" * 2001]], ids=["5", "str", "obj", "long"]
)
def test_rest_recall_refuses_bad_phrasings(alice_api, facts, queries):
    response = alice_api.post(SEARCH, {"query": "dentist", "queries": queries}, format="json")
    assert response.status_code == 400
    assert any(f.startswith("queries") for f in response.json()["error"]["fields"])


def test_the_tool_and_mcp_take_phrasings_and_say_the_time_read(alice_api, alice, facts):
    KnowledgeItem.objects.filter(pk=facts[FACTS[1]]).update(
        created_at=timezone.now() - timedelta(days=1)
    )
    arguments = {"query": "Who looks after my teeth?", "queries": ["user's dentist"]}
    body = alice_api.post(CALL, {"name": "recall", "arguments": arguments}, format="json").json()
    assert body["result"]["results"][0]["id"] == facts[FACTS[0]]
    asked = {"query": "what did I say about Biscuit yesterday", "queries": ["User's dog"]}
    via_mcp = mcp_tool(alice_api, "recall", asked)
    answer = via_mcp["structuredContent"]
    assert answer["time_read"]["said"] == "yesterday" and answer["time_read"]["used"] is True
    assert [r["id"] for r in answer["results"]] == [facts[FACTS[1]]]


def test_conversation_search_reads_time_on_rest_and_the_tool(
    alice_api, alice, django_capture_on_commit_callbacks
):
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        turns = turns_append_many(
            user=alice,
            turns=[
                {"session_id": "old", "role": "user", "content": "The dentist said floss more",
                 "timestamp": now - timedelta(days=40)},
                {"session_id": "new", "role": "user", "content": "The dentist said all fine",
                 "timestamp": now - timedelta(days=1, minutes=5)},
            ],
        )  # fmt: skip
    body = alice_api.post(TURNS, {"query": "what did the dentist say yesterday"}, format="json")
    assert body.status_code == 200, body.content
    assert [r["id"] for r in body.json()["results"]] == [turns[1].pk]
    assert body.json()["time_read"]["said"] == "yesterday"
    arguments = {"query": "dentist about six weeks ago", "queries": ["what the dentist told me"]}
    tool = alice_api.post(
        CALL, {"name": "search_past_conversations", "arguments": arguments}, format="json"
    ).json()["result"]
    assert [r["id"] for r in tool["results"]] == [turns[0].pk]
    assert tool["time_read"]["said"] == "about six weeks ago"
