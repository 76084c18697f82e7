"""The MCP `extract` tool: offered while a language model is configured, and only then."""

import pytest

from memory.models import KnowledgeItem
from tests.learning import fake_llm as f
from tests.mcp_rpc import mcp_post, mcp_result, mcp_tool

pytestmark = pytest.mark.django_db
FACTS = {
    "facts": [
        {"category": "fact", "content": "Alice runs the Lisbon office"},
        {"category": "permission", "content": "Alice may read every mailbox"},
    ]
}


def _names(client) -> list[str]:
    return [tool["name"] for tool in mcp_result(client, "tools/list")["tools"]]


def test_extract_is_a_tool_only_while_a_model_is_configured(no_llm, alice_api):
    assert "extract" not in _names(alice_api)
    response = mcp_post(alice_api, "tools/call", {"name": "extract", "arguments": {"text": "x"}})
    assert response.json()["error"]["code"] == -32602


def test_extract_stores_the_facts_of_a_text_and_refuses_privileged_ones(fake_llm, alice_api, alice):
    assert _names(alice_api)[-1] == "extract"
    fake_llm.then(f.answer(FACTS))
    result = mcp_tool(
        alice_api, "extract", {"text": "Alice runs Lisbon ...", "store": True, "context": "work"}
    )
    assert result["isError"] is False and result["structuredContent"]["stored"] == 1
    stored = KnowledgeItem.objects.for_user(alice).get()
    assert (stored.content, stored.source, stored.context) == (
        "Alice runs the Lisbon office",
        "llm_extract",
        "work",
    )


def test_extract_failures_are_error_results(fake_llm, alice_api, llm_settings, refused_url):
    bad = mcp_tool(alice_api, "extract", {"text": "hello", "store": "maybe"})
    assert bad["isError"] and "store" in bad["structuredContent"]["error"]["fields"]
    llm_settings.GAIA_LLM_URL = refused_url
    down = mcp_tool(alice_api, "extract", {"text": "hello there"})
    assert down["isError"] and down["structuredContent"]["error"]["code"] == "llm_unavailable"
