"""`extract` as an agent tool: listed by GET /tools/ and MCP while a model is configured,
run by POST /tools/call/ and MCP (the Python client: tests/clients/test_extract.py), and
the model's answer in seed 002's own shape ({"extracted": [...]}) read at once, with no
repair request, however a local model wraps it (fences, thinking, prose, upper-case keys)."""

import json

import pytest

from memory.models import KnowledgeItem
from tests.learning import fake_llm as f
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
BLOB = (
    "After reviewing the infrastructure options, the team recommends PostgreSQL for the "
    "user database due to its JSONB support. Estimated cost is $2,400/month on RDS. The "
    "compliance team flagged that all user data must stay in EU regions. DevOps prefers "
    "managed services over self-hosted."
)
SEED_002_FACTS = [
    "Team recommends PostgreSQL for user database due to JSONB support",
    "Estimated database cost is $2,400/month on RDS",
    "Compliance requires all user data to remain in EU regions",
    "DevOps prefers managed services over self-hosted",
]
SEED_002 = json.dumps({"extracted": SEED_002_FACTS}, indent=2)
SHAPES = {
    "plain": SEED_002,
    "code-fence": f"```json\n{SEED_002}\n```",
    "thinking-then-fence": f"<think>\nFour atomic facts.\n</think>\n\n```json\n{SEED_002}\n```",
    "prose-around": f"Here are the extracted memories:\n\n{SEED_002}\n\nHope this helps!",
    "upper-case-keys": json.dumps({"EXTRACTED": [{"Content": t} for t in SEED_002_FACTS]}),
}


def _call(client, arguments: dict) -> dict:
    response = client.post(
        "/api/v1/tools/call/", {"name": "extract", "arguments": arguments}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_get_tools_lists_extract_while_a_model_is_configured(fake_llm, alice_api):
    tools = alice_api.get("/api/v1/tools/").json()["tools"]
    extract = [t["function"] for t in tools if t["function"]["name"] == "extract"]
    assert len(extract) == 1 and extract[0]["parameters"]["required"] == ["text"]


def test_without_a_model_extract_is_not_listed_and_a_call_says_why(no_llm, alice_api):
    names = [t["function"]["name"] for t in alice_api.get("/api/v1/tools/").json()["tools"]]
    assert "extract" not in names
    body = _call(alice_api, {"text": BLOB})
    assert body["ok"] is False and body["error"]["code"] == "llm_unavailable"


@pytest.mark.parametrize("shape", SHAPES)
def test_tools_call_reads_seed_002s_shape_at_once_and_stores_each_fact(
    fake_llm, alice_api, alice, shape
):
    fake_llm.then(f.content(SHAPES[shape]))
    body = _call(alice_api, {"text": BLOB, "store": True, "context": "work"})
    assert body["ok"] is True, body
    assert [fact["content"] for fact in body["result"]["facts"]] == SEED_002_FACTS
    assert body["result"]["stored"] == 4
    assert len(fake_llm.requests) == 1  # read directly: no repair round-trip
    stored = KnowledgeItem.objects.for_user(alice).order_by("pk")
    assert [(i.content, i.context, i.source) for i in stored] == [
        (text, "work", "llm_extract") for text in SEED_002_FACTS
    ]
    assert all(i.agent is not None and i.agent.name == "test-agent" for i in stored)


def test_tools_call_without_store_only_answers_the_facts(fake_llm, alice_api, alice):
    fake_llm.then(f.content(SHAPES["thinking-then-fence"]))
    body = _call(alice_api, {"text": BLOB})
    assert body["ok"] and body["result"]["stored"] == 0
    assert not KnowledgeItem.objects.for_user(alice).exists()


def test_a_credential_among_the_facts_is_refused_alone(fake_llm, alice_api, alice):
    facts = ["The garage door code is 4821", "User keeps the car in the garage"]
    fake_llm.then(f.answer({"extracted": facts}))
    body = _call(alice_api, {"text": "The garage door code is 4821, car is in it", "store": True})
    assert body["ok"] and body["result"]["stored"] == 1
    assert list(KnowledgeItem.objects.for_user(alice).values_list("content", flat=True)) == [
        "User keeps the car in the garage"
    ]


def test_mcp_extract_reads_seed_002s_shape(fake_llm, alice_api, alice):
    fake_llm.then(f.content(SHAPES["upper-case-keys"]))
    result = mcp_tool(alice_api, "extract", {"text": BLOB, "store": True})
    assert result["isError"] is False and result["structuredContent"]["stored"] == 4
    assert len(fake_llm.requests) == 1
