"""The MCP server at /mcp, one JSON-RPC exchange at a time (in process).

The official SDK client against the real server, both protocol eras, is in
tests/system/test_mcp.py.
"""

import json

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.services import token_revoke
from conversations.services.recording import turn_append
from memory import agent_tools, services
from memory.models import KnowledgeItem
from tests.mcp_rpc import HELLO, LEGACY, initialize, mcp_post, mcp_result, mcp_tool

pytestmark = pytest.mark.django_db


def test_it_lists_the_five_memory_tools_with_the_rest_apis_schemas(alice_api, settings):
    settings.GAIA_LLM_URL = ""
    tools = mcp_result(alice_api, "tools/list")["tools"]
    assert [t["name"] for t in tools] == agent_tools.TOOL_NAMES
    by_name = {t["function"]["name"]: t["function"] for t in agent_tools.TOOLS}
    for tool in tools:
        assert tool["inputSchema"] == by_name[tool["name"]]["parameters"]
        assert tool["description"] == by_name[tool["name"]]["description"]
    hints = {t["name"]: t["annotations"] for t in tools}
    assert hints["recall"]["readOnlyHint"] is True
    assert hints["forget"]["destructiveHint"] is True


def test_a_model_remembers_and_recalls_for_the_token_owner(alice_api, alice):
    stored = mcp_tool(alice_api, "remember", {"content": "Alice's cat is called Miso"})
    assert stored["isError"] is False
    item = KnowledgeItem.objects.get(pk=stored["structuredContent"]["id"])
    assert (item.owner, item.source) == (alice, "tool")
    found = mcp_tool(alice_api, "recall", {"query": "what is the cat called"})
    assert [r["id"] for r in found["structuredContent"]["results"]] == [item.pk]
    changed = mcp_tool(alice_api, "update_memory", {"id": item.pk, "content": "Miso is a cat"})
    assert changed["structuredContent"]["content"] == "Miso is a cat"
    assert mcp_tool(alice_api, "forget", {"id": item.pk})["structuredContent"]["forgotten"]


def test_a_failing_tool_call_is_an_error_result_the_model_can_read(alice_api):
    missing = mcp_tool(alice_api, "forget", {"id": 123456})
    assert missing["isError"] is True
    assert missing["structuredContent"]["error"]["code"] == "not_found"
    bad = mcp_tool(alice_api, "remember", {"content": ""})
    assert bad["isError"] is True
    assert "content" in bad["structuredContent"]["error"]["fields"]


def test_an_unknown_tool_is_a_protocol_error_not_a_server_error(alice_api):
    response = mcp_post(alice_api, "tools/call", {"name": "drop_tables", "arguments": {}})
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == -32602 and "drop_tables" in error["message"]


def test_initialize_hands_over_the_users_memory_block_as_instructions(alice_api, alice):
    services.memory_create(user=alice, content="Prefers answers in French", category="preference")
    result = initialize(alice_api)
    assert result["protocolVersion"] == LEGACY
    assert result["serverInfo"]["name"] == "gaia-memory"
    assert set(result["capabilities"]) >= {"tools", "prompts", "resources"}
    assert "Prefers answers in French" in result["instructions"]
    assert "call `remember`" in result["instructions"]


def test_the_system_block_and_turn_context_are_prompts_and_resources(alice_api, alice):
    services.memory_create(
        user=alice, content="Uses vim at work", category="preference", context="work"
    )
    names = [p["name"] for p in mcp_result(alice_api, "prompts/list")["prompts"]]
    assert names == ["memory-system", "memory-context"]
    work = mcp_result(alice_api, "prompts/get", {"name": "memory-system", "arguments": {}})
    assert "Uses vim at work" not in work["messages"][0]["content"]["text"]
    work = mcp_result(
        alice_api, "prompts/get", {"name": "memory-system", "arguments": {"context": "work"}}
    )
    assert "Uses vim at work" in work["messages"][0]["content"]["text"]
    uris = [r["uri"] for r in mcp_result(alice_api, "resources/list")["resources"]]
    assert uris == ["gaia://memory/system-prompt", "gaia://memory/turn-context"]
    read = mcp_result(
        alice_api, "resources/read", {"uri": "gaia://memory/system-prompt?context=work"}
    )
    assert "Uses vim at work" in read["contents"][0]["text"]
    context = mcp_result(alice_api, "resources/read", {"uri": "gaia://memory/turn-context"})
    assert context["contents"][0]["text"].startswith("[Gaia Memory Context]\nCurrent time:")


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("prompts/get", {"name": "memory-context", "arguments": {"days": "soon"}}),
        ("prompts/get", {"name": "no-such-prompt"}),
        ("resources/read", {"uri": "gaia://memory/everything"}),
        ("resources/read", {"uri": "gaia://memory/turn-context?days=-4"}),
    ],
)
def test_bad_prompt_and_resource_requests_are_invalid_params(alice_api, method, params):
    response = mcp_post(alice_api, method, params)
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602


@pytest.mark.cross_user("api-mcp")
def test_another_users_token_sees_and_changes_nothing_of_alice_through_mcp(
    alice, bob_api, alice_api
):
    secret = "Alice's passport number is in the blue drawer"
    item = services.memory_create(user=alice, content=secret, category="preference")
    turn_append(user=alice, session_id="s1", role="user", content="The blue drawer holds it")
    assert mcp_tool(alice_api, "recall", {"query": "blue drawer"})["structuredContent"]["results"]

    found = mcp_tool(bob_api, "recall", {"query": "blue drawer passport"})["structuredContent"]
    assert found["results"] == []
    turns = mcp_tool(bob_api, "search_past_conversations", {"query": "blue drawer"})
    assert turns["structuredContent"]["results"] == []
    for name, arguments in (
        ("update_memory", {"id": item.pk, "content": "taken over"}),
        ("forget", {"id": item.pk}),
    ):
        result = mcp_tool(bob_api, name, arguments)
        missing = mcp_tool(bob_api, name, {**arguments, "id": item.pk + 1000})
        assert result["structuredContent"] == missing["structuredContent"]
        assert result["structuredContent"]["error"]["code"] == "not_found"
    item.refresh_from_db()
    assert (item.content, item.forgotten_at) == (secret, None)

    texts = [
        initialize(bob_api)["instructions"],
        mcp_result(bob_api, "prompts/get", {"name": "memory-system"})["messages"][0],
        mcp_result(bob_api, "resources/read", {"uri": "gaia://memory/system-prompt"}),
        mcp_result(bob_api, "resources/read", {"uri": "gaia://memory/turn-context"}),
    ]
    assert "drawer" not in json.dumps(texts)


def test_mcp_needs_a_valid_bearer_token_and_ignores_a_login_session(alice, alice_api):
    assert mcp_post(Client(), "tools/list").status_code == 401
    bad = mcp_post(Client(), "tools/list", HTTP_AUTHORIZATION="Bearer gaia_not-a-token")
    assert bad.status_code == 401 and bad["WWW-Authenticate"] == "Bearer"
    browser = Client()
    browser.force_login(alice)
    assert mcp_post(browser, "tools/list").status_code == 401
    token_revoke(user=alice, token_id=ApiToken.objects.get(owner=alice).pk)
    assert mcp_post(alice_api, "tools/list").status_code == 401


def test_get_and_delete_answer_405_as_the_server_keeps_no_sessions(alice_api):
    for method in (alice_api.get, alice_api.delete):
        response = method("/mcp", HTTP_ACCEPT="text/event-stream")
        assert response.status_code == 405
    assert "Mcp-Session-Id" not in mcp_post(alice_api, "initialize", HELLO)


def test_broken_and_oversized_bodies_get_clear_answers_not_server_errors(alice_api, settings):
    headers = {"HTTP_ACCEPT": "application/json, text/event-stream"}
    garbage = alice_api.post("/mcp", "{not json", content_type="application/json", **headers)
    assert garbage.status_code == 400 and garbage.json()["error"]["code"] == -32700
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = mcp_tool_body("remember", {"content": "x" * 2000})
    response = alice_api.post("/mcp", big, content_type="application/json", **headers)
    assert response.status_code == 413


def mcp_tool_body(name: str, arguments: dict) -> str:
    params = {"name": name, "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})


def test_the_resources_are_also_listed_as_templates_with_their_query(alice_api, alice):
    services.memory_create(
        user=alice, content="Uses vim at work", category="preference", context="work"
    )
    listed = mcp_result(alice_api, "resources/templates/list")["resourceTemplates"]
    templates = {t["uriTemplate"]: t["mimeType"] for t in listed}
    assert templates == {
        "gaia://memory/system-prompt{?context}": "text/plain",
        "gaia://memory/turn-context{?context,days,notes,query}": "text/plain",
    }
    read = mcp_result(
        alice_api, "resources/read", {"uri": "gaia://memory/system-prompt?context=work"}
    )
    assert "Uses vim at work" in read["contents"][0]["text"]


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("forget", {"memory_id": 12}, "memory_id: Unknown field"),
        (
            "update_memory",
            {"memory_id": 12, "content": "x"},
            "id: Required (not memory_id): the memory's id, an integer.",
        ),
        ("update_memory", {"content": "x"}, "id: Required: the memory's id, an integer."),
        ("recall", {"qurey": "tea"}, "qurey: Unknown field"),
        ("recall", {"query": "tea", "top_k": "many"}, "top_k: A valid integer is required."),
        ("relate", {"subj": "me", "type": "partner_of", "object": "Rui"}, "subj: Unknown field"),
    ],
)
def test_an_argument_error_names_the_argument_and_what_the_tool_takes(
    alice_api, tool, arguments, named
):
    result = mcp_tool(alice_api, tool, arguments)
    assert result["isError"] is True
    message = result["structuredContent"]["error"]["message"]
    assert message.startswith(f"Invalid arguments for {tool}: ") and named in message, message
    shape = {
        "forget": "id (integer), context (string), entity (string)",
        "update_memory": "id (integer, required)",
        "recall": "query (string, required)",
        "relate": "subject (integer or string, required)",
    }
    assert f"It takes: {shape[tool]}" in message, message  # fmt: skip
    assert "may not be null" not in message
