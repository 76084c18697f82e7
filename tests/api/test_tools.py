import json

import pytest

from conversations.services.recording import turn_append
from memory import agent_tools
from memory.api.serializers import MemoryCreateSerializer, MemoryUpdateSerializer, RecallSerializer
from memory.models import KnowledgeItem
from tests.support import assert_error

pytestmark = pytest.mark.django_db
CALL = "/api/v1/tools/call/"


def call(client, name, arguments):
    response = client.post(CALL, {"name": name, "arguments": arguments}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["name"] == name
    return body


def test_it_lists_the_memory_tools_as_openai_function_schemas(alice_api):
    tools = alice_api.get("/api/v1/tools/").json()["tools"]
    assert [t["function"]["name"] for t in tools] == [
        "remember", "recall", "update_memory", "list_memories", "forget",
        "search_past_conversations", "recall_skills", "propose_skill", "relate",
    ]  # fmt: skip
    for tool in tools:
        assert tool["type"] == "function"
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert tool["function"]["description"]


def test_tool_parameters_are_what_the_api_serializers_accept():
    by_name = {t["function"]["name"]: t["function"]["parameters"] for t in agent_tools.TOOLS}
    assert set(by_name["remember"]["properties"]) <= set(MemoryCreateSerializer().fields)
    assert set(by_name["recall"]["properties"]) <= set(RecallSerializer().fields)
    update = set(by_name["update_memory"]["properties"]) - {"id"}
    assert update <= set(MemoryUpdateSerializer().fields)


SCHEMA_WORDS = {"type", "enum", "minimum", "maximum", "description", "items", "format"}


def test_every_tool_parameter_is_a_plain_json_schema_of_its_own():
    # A model reads these: a keyword it does not know inside a parameter (a parameter
    # nested in another) is one it can never set.
    for tool in agent_tools.TOOLS:
        for name, schema in tool["function"]["parameters"]["properties"].items():
            assert set(schema) <= SCHEMA_WORDS, (tool["function"]["name"], name, set(schema))
    by_name = {t["function"]["name"]: t["function"]["parameters"] for t in agent_tools.TOOLS}
    for name in ("recall", "search_past_conversations"):
        assert by_name[name]["properties"]["judge"]["type"] == "boolean"


def test_a_model_can_remember_recall_update_and_forget(alice_api, alice):
    stored = call(
        alice_api,
        "remember",
        json.dumps(
            {"content": "Alice's cat is named Miso", "entity": "person:alice", "domain": ""}
        ),
    )
    assert stored["ok"] is True and stored["result"]["deduplicated"] is False
    item_id = stored["result"]["id"]
    assert KnowledgeItem.objects.get(pk=item_id).source == "tool"

    found = call(alice_api, "recall", {"query": "cat name", "top_k": 3, "category": None})
    assert [r["id"] for r in found["result"]["results"]] == [item_id]

    updated = call(
        alice_api,
        "update_memory",
        {"id": item_id, "content": "Alice's cat is named Mochi", "entity": ""},
    )
    assert updated["ok"] and updated["result"]["content"] == "Alice's cat is named Mochi"
    assert updated["result"]["entity"] == "person:alice"  # an empty value changes nothing

    forgotten = call(alice_api, "forget", f'{{"id": {item_id}}}')
    assert forgotten == {
        "name": "forget",
        "ok": True,
        "result": {"id": item_id, "forgotten": True, "count": 1, "dry_run": False},
    }
    assert KnowledgeItem.objects.get(pk=item_id).forgotten_at is not None


def test_a_model_can_search_past_conversations(alice_api, alice):
    turn = turn_append(user=alice, session_id="s1", role="user", content="The router is a Fritzbox")
    found = call(alice_api, "search_past_conversations", {"query": "router"})
    assert found["result"]["results"][0]["id"] == turn.pk
    assert found["result"]["results"][0]["session_id"] == "s1"
    empty = call(alice_api, "search_past_conversations", {})
    assert empty["ok"] is False and empty["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("delete_everything", {}, "unknown_tool"),
        ("remember", "{not json", "invalid_arguments"),
        ("remember", "[1, 2]", "invalid_arguments"),
        ("remember", 42, "invalid_arguments"),
        ("remember", {}, "invalid_arguments"),
        ("remember", {"content": "x", "category": "system"}, "invalid_arguments"),
        ("remember", {"content": "x", "owner": 1}, "invalid_arguments"),
        ("remember", {"content": "my password is hunter22"}, "invalid"),
        ("recall", {"query": "x", "top_k": 1000}, "invalid_arguments"),
        ("update_memory", {"content": "no id"}, "invalid_arguments"),
        ("update_memory", {"id": "seven", "content": "x"}, "invalid_arguments"),
        ("update_memory", {"id": 10**30, "content": "x"}, "invalid_arguments"),
        ("update_memory", {"id": 999999, "content": "x"}, "not_found"),
        ("forget", {"id": 999999}, "not_found"),
        ("forget", {"id": 1, "reason": "because"}, "invalid_arguments"),
    ],
)
def test_bad_tool_calls_give_a_readable_error_result(alice_api, name, arguments, code):
    result = call(alice_api, name, arguments)
    assert result["ok"] is False and result["error"]["code"] == code
    assert result["error"]["message"]


def test_it_answers_a_malformed_call_envelope_with_400(alice_api):
    assert_error(alice_api.post(CALL, {"arguments": {}}, format="json"), 400)
    assert_error(alice_api.post(CALL, ["recall"], format="json"), 400)
    assert_error(alice_api.post(CALL, {"name": "recall", "extra": 1}, format="json"), 400)


@pytest.mark.cross_user("api-tools", "api-tool-call")
def test_tools_never_reach_another_users_memory(bob_api, alice, near_twins):
    alice_id = near_twins["alice"].pk
    before = KnowledgeItem.objects.filter(pk=alice_id).values().get()
    missing = call(bob_api, "update_memory", {"id": 10**9, "content": "x"})
    for name, arguments in (
        ("update_memory", {"id": alice_id, "content": "bob was here"}),
        ("forget", {"id": alice_id}),
    ):
        result = call(bob_api, name, arguments)
        assert result["ok"] is False and result["error"] == missing["error"]
    assert KnowledgeItem.objects.filter(pk=alice_id).values().get() == before
    found = call(bob_api, "recall", {"query": "user works on project gaia", "top_k": 100})
    assert [r["id"] for r in found["result"]["results"]] == [near_twins["bob"].pk]
    turns = call(bob_api, "search_past_conversations", {"query": "project gaia"})
    assert all("bob" in r["content"] for r in turns["result"]["results"])
    assert "alice" not in json.dumps(bob_api.get("/api/v1/tools/").json())
    stored = call(bob_api, "remember", {"content": "The user alice works on project gaia"})
    assert KnowledgeItem.objects.get(pk=stored["result"]["id"]).owner_id != alice.pk
