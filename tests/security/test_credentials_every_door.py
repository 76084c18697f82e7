"""Credentials said in words (door codes, passphrases, login pairs, one-time codes, national
id numbers) are refused by every door that remembers, with the reason, and masked in
every turn and tool call; the ordinary sentences beside them are stored."""

import json

import pytest
from django.test import Client

from conversations.models import ToolCall, Turn
from memory.models import KnowledgeItem
from tests.mcp_rpc import mcp_tool

pytestmark = pytest.mark.django_db
SAID = {
    "a door or alarm code": ("The garage door code is 4821", "4821"),
    "a passphrase": ("the passphrase is correct horse battery staple", "horse battery"),
    "a login and password": ("Login for the bank site: alex / Sommer2026!", "Sommer2026"),
    "a one-time code": ("Your verification code is 482913", "482913"),
    "a national id number": ("My SSN is 123-45-6789", "123-45-6789"),
}
KINDS = list(SAID)
ALLOWED = [
    "My password was changed yesterday",
    "Call me at +47 912 34 567",
    "the meeting code is in the invite",
    "Dentist appointment on 2026-12-03 at 19:00 in room 412",
]


def _nothing_kept(user, value: str) -> None:
    assert not KnowledgeItem.objects.for_user(user).filter(content__contains=value).exists()


@pytest.mark.parametrize("kind", KINDS)
def test_rest_remember_refuses_it_with_the_reason(alice_api, alice, kind):
    text, value = SAID[kind]
    response = alice_api.post("/api/v1/memories/", {"content": text}, format="json")
    assert response.status_code == 400
    error = json.dumps(response.json())
    assert f"looks like it contains {kind}" in error and value not in error
    _nothing_kept(alice, value)


@pytest.mark.parametrize("kind", KINDS)
def test_rest_remember_a_list_refuses_the_whole_batch(alice_api, alice, kind):
    text, value = SAID[kind]
    batch = [{"content": "Works at Acme"}, {"content": text}]
    response = alice_api.post("/api/v1/memories/", batch, format="json")
    assert response.status_code == 400 and kind in json.dumps(response.json())
    assert not KnowledgeItem.objects.for_user(alice).exists()


@pytest.mark.parametrize("kind", KINDS)
def test_the_remember_tool_call_refuses_it_with_the_reason(alice_api, alice, kind):
    text, value = SAID[kind]
    response = alice_api.post(
        "/api/v1/tools/call/", {"name": "remember", "arguments": {"content": text}}, format="json"
    )
    body = response.json()
    assert response.status_code == 200 and body["ok"] is False
    assert kind in json.dumps(body) and value not in json.dumps(body)
    _nothing_kept(alice, value)


@pytest.mark.parametrize("kind", KINDS)
def test_the_mcp_remember_tool_refuses_it_with_the_reason(alice_api, alice, kind):
    text, value = SAID[kind]
    result = mcp_tool(alice_api, "remember", {"content": text})
    assert result["isError"] is True and kind in result["content"][0]["text"]
    _nothing_kept(alice, value)


@pytest.mark.parametrize("kind", KINDS)
def test_the_web_form_refuses_it_next_to_the_field(alice, kind):
    text, value = SAID[kind]
    web = Client()
    web.force_login(alice)
    response = web.post("/memories/new/", {"content": text, "category": "fact"})
    assert response.status_code == 200
    assert f"looks like it contains {kind}" in response.content.decode()
    _nothing_kept(alice, value)


@pytest.mark.parametrize("kind", KINDS)
def test_an_import_refuses_the_line_that_holds_it(alice_api, alice, kind):
    text, value = SAID[kind]
    lines = [
        {"type": "header", "format": "gaia-memory-export", "version": 2},
        {"type": "knowledge", "content": text},
        {"type": "end", "records": 1},
    ]
    body = "".join(json.dumps(line) + "\n" for line in lines)
    response = alice_api.post("/api/v1/import/", body, content_type="application/x-ndjson")
    assert response.status_code == 400 and kind in json.dumps(response.json())
    _nothing_kept(alice, value)


def test_a_logged_turn_keeps_the_sentence_with_every_credential_masked(alice_api, alice):
    said = ". ".join(text for text, _ in SAID.values())
    response = alice_api.post(
        "/api/v1/conversations/turns/",
        {"session_id": "s", "role": "user", "content": said},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["secrets_masked"] == len(SAID)
    stored = Turn.objects.for_user(alice).get().content
    for kind, (_, value) in SAID.items():
        assert value not in stored
        assert f"[secret masked: {kind.split(' ', 1)[1]}]" in stored
    assert stored.startswith("The garage door code is [secret masked")


def test_a_logged_tool_call_keeps_no_credential_in_its_arguments_or_error(alice_api, alice):
    response = alice_api.post(
        "/api/v1/tool-calls/",
        {
            "tool_name": "bank_login",
            "success": False,
            "args": {"note": SAID["a login and password"][0], "otp": "OTP: 739 201"},
            "error": "Refused for SSN 123-45-6789 at the gate (alarm code: 1-9-8-4)",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    call = ToolCall.objects.for_user(alice).get()
    kept = json.dumps(call.args) + call.error
    for value in ("Sommer2026", "739 201", "123-45-6789", "1-9-8-4"):
        assert value not in kept


@pytest.mark.parametrize("text", ALLOWED)
def test_ordinary_sentences_beside_them_are_remembered(alice_api, alice, text):
    response = alice_api.post("/api/v1/memories/", {"content": text}, format="json")
    assert response.status_code == 201, response.content
    assert KnowledgeItem.objects.for_user(alice).get().content == text
