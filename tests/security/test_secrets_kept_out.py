"""Secrets never enter memory: items refuse them, turns and tool calls keep them masked,
and what was masked is found by no search, reaches no model and leaves in no export."""

import json
import re

import pytest
from django.core.exceptions import ValidationError

from conversations.models import ToolCall, Turn
from conversations.search import search_turns
from conversations.services.recording import tool_call_record, turn_append
from learning import extraction
from learning.extract_text import text_extract
from memory import agent_tools, services
from memory.models import KnowledgeItem
from memory.portability.store import import_lines
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SAID = (
    f"For the deploy script my aws secret access key is {AWS_SECRET} and the "
    "bank card PIN is 4821, please remember where I put them"
)


@pytest.mark.parametrize(
    "text",
    [f"my AWS secret access key is {AWS_SECRET}", "My bank PIN is 4821", "PIN code: 0394"],
    ids=["aws-secret-access-key", "bank-pin", "pin-code"],
)
def test_remember_refuses_an_aws_secret_key_and_a_pin(alice, text):
    result = agent_tools.tool_call(user=alice, name="remember", arguments={"content": text})
    assert result["ok"] is False and "Refused" in json.dumps(result)
    assert not KnowledgeItem.objects.exists()


def test_a_turn_is_stored_with_its_secrets_masked_and_counted(alice_api, alice):
    response = alice_api.post(
        "/api/v1/conversations/turns/",
        {"session_id": "s", "role": "user", "content": SAID},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["secrets_masked"] == 2
    assert AWS_SECRET not in body["content"] and "4821" not in body["content"]
    assert "[secret masked: AWS secret access key]" in body["content"]
    turn = Turn.objects.for_user(alice).get()
    assert AWS_SECRET not in turn.content and turn.secrets_masked == 2
    assert turn.extraction_status == "pending"  # the turn is kept, and still learned from
    stats = alice_api.get("/api/v1/stats/").json()
    assert stats["extraction"]["secrets_masked"] == 2


def test_nothing_masked_is_found_by_conversation_search(alice):
    turn_append(user=alice, session_id="s", role="user", content=SAID)
    after = turn_append(user=alice, session_id="s", role="assistant", content="Noted.")
    for query in (AWS_SECRET, "wJalrXUtnFEMI", "4821"):
        hits = search_turns(user=alice, query=query, top_k=10)
        assert [h for h in hits if h.matched_by in ("keyword", "both")] == []
        assert all(query not in h.turn.content for h in hits)
    after.refresh_from_db()
    assert AWS_SECRET not in after.context_text  # the next turn's indexed context too


def test_nothing_masked_reaches_the_model(fake_llm, alice):
    turn = turn_append(user=alice, session_id="s", role="user", content=SAID)
    fake_llm.then(f.answer({"operations": []}))
    extraction.extract_turn(turn_id=turn.pk)
    sent = json.dumps(fake_llm.requests)
    assert AWS_SECRET not in sent and "4821" not in sent


def test_the_extract_action_sends_no_secret_to_the_model(fake_llm, alice):
    fake_llm.then(f.answer({"facts": [{"content": "User keeps a deploy script"}]}))
    result = text_extract(user=alice, text=SAID, store=True)
    sent = json.dumps(fake_llm.requests)
    assert AWS_SECRET not in sent and "4821" not in sent
    assert "deploy script" in sent  # the rest of the text still goes
    assert result["stored"] == 1


def test_nothing_masked_leaves_in_an_export(alice_api, alice):
    turn_append(user=alice, session_id="s", role="user", content=SAID)
    tool_call_record(
        user=alice,
        tool_name="deploy",
        success=False,
        args={"env": {"AWS_SECRET_ACCESS_KEY": AWS_SECRET}},
        error=f"aws rejected secret {AWS_SECRET}",
    )
    response = alice_api.get("/api/v1/export/")
    exported = b"".join(response.streaming_content).decode()
    # The PIN as a number of its own: a timestamp's microseconds may hold the digits.
    assert AWS_SECRET not in exported and not re.search(r"(?<!\d)4821(?!\d)", exported)
    assert "[secret masked" in exported


def test_an_imported_turn_is_masked_too(alice):
    lines = [
        json.dumps({"type": "header", "format": "gaia-memory-export", "version": 1}),
        json.dumps(
            {
                "type": "turn",
                "session_id": "old",
                "role": "user",
                "content": SAID,
                "timestamp": "2024-01-01T10:00:00Z",
            }
        ),
        json.dumps(
            {
                "type": "tool_call",
                "tool_name": "deploy",
                "error": f"bad key {AWS_SECRET} (aws secret)",
                "timestamp": "2024-01-01T10:00:00Z",
            }
        ),
    ]
    import_lines(user=alice, lines=lines)
    turn = Turn.objects.for_user(alice).get()
    assert AWS_SECRET not in turn.content and turn.secrets_masked == 2
    assert AWS_SECRET not in ToolCall.objects.for_user(alice).get().error


def test_a_fact_with_a_secret_proposed_by_the_model_is_refused_and_counted(fake_llm, alice):
    turn = turn_append(user=alice, session_id="s", role="user", content="I set up the VPN today")
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "add", "content": f"User's aws secret key is {AWS_SECRET}"},
                    {"op": "add", "content": "User set up a VPN"},
                ]
            }
        )
    )
    result = extraction.extract_turn(turn_id=turn.pk)
    assert (result["status"], result["added"], result["refused"]) == ("partial", 1, 1)
    assert not KnowledgeItem.objects.filter(content__contains="wJalr").exists()
    turn.refresh_from_db()
    assert "AWS secret access key" in turn.extraction_error and AWS_SECRET not in (
        turn.extraction_error
    )


def test_memory_services_refuse_every_new_kind_of_secret(alice):
    for text in (
        "postgres://app:s3cr3tP4ss@db.internal:5432/prod",
        "card 4111 1111 1111 1111",
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n",
    ):
        with pytest.raises(ValidationError):
            services.memory_create(user=alice, content=text)
    assert not KnowledgeItem.objects.exists()
