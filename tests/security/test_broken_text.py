"""Broken text (a lone surrogate, which JSON can carry but UTF-8 cannot) is refused at
every door with a 400 in the error shape, and rows stored before the doors checked are
repaired by a migration: the account's lists, pages, admin and export keep working."""

import importlib
import json

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client

from accounts.services import user_settings_update
from conversations.models import ToolCall
from conversations.services.recording import tool_call_record
from discovery.models import Finding
from memory import agent_tools, services
from memory.models import KnowledgeItem
from tests.support import assert_error

pytestmark = pytest.mark.django_db
LONE = "\ud800"


def _post(api, url: str, body) -> object:
    # json.dumps writes the surrogate as the escape "\ud800", exactly as an attacker sends it.
    return api.generic("POST", url, json.dumps(body), content_type="application/json")


def _export(api) -> list[dict]:
    response = api.get("/api/v1/export/")
    assert response.status_code == 200
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def _everything_answers(api, staff_web: Client) -> None:
    for url in ("/api/v1/memories/", "/api/v1/tool-calls/", "/api/v1/conversations/sessions/"):
        assert api.get(url).status_code == 200, url
    assert _post(api, "/api/v1/memories/search/", {"query": "anything"}).status_code == 200
    assert _export(api)
    for item in KnowledgeItem.objects.all():
        assert staff_web.get(f"/admin/memory/knowledgeitem/{item.pk}/change/").status_code == 200
    for call in ToolCall.objects.all():
        assert staff_web.get(f"/admin/conversations/toolcall/{call.pk}/change/").status_code == 200


def _web(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff_web(django_user_model) -> Client:
    root = django_user_model.objects.create_superuser("root", "root@example.org", "root-pass")
    client = Client()
    client.force_login(root)
    return client


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/memories/", {"content": "a fact", "metadata": {"k": LONE}}, "metadata.k"),
        ("/api/v1/memories/", {"content": "a fact", "metadata": {LONE: 1}}, "metadata.\ufffd"),
        ("/api/v1/memories/", [{"content": "ok"}, {"content": "x", "metadata": {"t": [LONE]}}],
         "1.metadata.t.0"),
        ("/api/v1/tool-calls/", {"tool_name": "search", "args": {"q": f"a{LONE}"}}, "args.q"),
        ("/api/v1/tool-calls/", {"tool_name": "search", "args": [{LONE: "x"}]}, "args.0.\ufffd"),
        ("/api/v1/conversations/turns/", {"session_id": "s", "role": "user", "content": LONE},
         "content"),
        ("/api/v1/tools/call/", {"name": "remember", "arguments": {"content": "x", LONE: 1}},
         "arguments.\ufffd"),
    ],
)  # fmt: skip
def test_broken_text_in_any_body_is_a_400_naming_where_and_nothing_is_stored(
    alice, alice_api, staff_web, url, body, field
):
    response = _post(alice_api, url, body)

    error = assert_error(response, 400)
    assert set(error["fields"]) == {field}
    assert "surrogate" in error["fields"][field][0]
    assert not KnowledgeItem.objects.exists() and not ToolCall.objects.exists()
    _everything_answers(alice_api, staff_web)


def test_the_tool_dispatcher_refuses_broken_text_in_arguments_as_a_string(alice, alice_api):
    arguments = json.dumps({"content": "Likes tea", "metadata": {"k": LONE}})

    answer = _post(alice_api, "/api/v1/tools/call/", {"name": "remember", "arguments": arguments})

    assert answer.status_code == 200
    body = answer.json()
    assert body["ok"] is False
    assert list(body["error"]["fields"]) == ["metadata.k"]
    assert not KnowledgeItem.objects.exists()
    unknown_key = agent_tools.tool_call(
        user=alice, name="remember", arguments=json.dumps({"content": "x", LONE: 1})
    )
    assert unknown_key["ok"] is False
    json.dumps(unknown_key, ensure_ascii=False).encode()  # the answer itself is valid text


def test_services_refuse_broken_text_from_any_caller(alice):
    with pytest.raises(Exception, match="surrogate"):
        services.memory_create(user=alice, content="a fact", metadata={"k": LONE})
    with pytest.raises(Exception, match="surrogate"):
        services.memory_create(user=alice, content=f"a fact {LONE}")
    with pytest.raises(Exception, match="surrogate"):
        tool_call_record(user=alice, tool_name="search", args={"q": LONE})
    assert not KnowledgeItem.objects.exists() and not ToolCall.objects.exists()


def test_discovery_findings_with_broken_text_are_a_400(alice, alice_api):
    user_settings_update(user=alice, discovery_consent=True)
    finding = {"content": f"Uses {LONE} daily", "scanner": "apps"}

    response = _post(alice_api, "/api/v1/discovery/findings/", {"findings": [finding]})

    assert_error(response, 400)
    assert not Finding.objects.exists()


def test_a_web_form_with_bytes_that_are_not_utf8_does_not_fail(alice):
    response = _web(alice).post(
        "/memories/new/",
        b"content=caf%ED%A0%80+au+lait&category=fact&context=global",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 302
    assert KnowledgeItem.objects.get().content == "caf\ufffd\ufffd\ufffd au lait"


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="PostgreSQL's jsonb never stored a lone surrogate"
)
def test_the_migration_repairs_rows_stored_before_and_every_view_works_again(
    alice, alice_api, staff_web
):
    item = services.memory_create(user=alice, content="Alice likes green tea")
    call = tool_call_record(user=alice, tool_name="search", args={"q": "tea"})
    # What the old code let through: JSON stored ASCII-escaped, read back as a lone surrogate.
    KnowledgeItem.objects.filter(pk=item.pk).update(metadata={"k": LONE, LONE: ["x\udc80"]})
    ToolCall.objects.filter(pk=call.pk).update(args=[{"q": f"a{LONE}"}])
    memory_fix = importlib.import_module("memory.migrations.0008_repair_text_and_dates")
    turns_fix = importlib.import_module("conversations.migrations.0005_repair_text_and_dates")

    memory_fix.repair(apps, None)
    turns_fix.repair(apps, None)

    item.refresh_from_db()
    call.refresh_from_db()
    assert item.metadata == {"k": "\ufffd", "\ufffd": ["x\ufffd"]}
    assert call.args == [{"q": "a\ufffd"}]
    _everything_answers(alice_api, staff_web)
    assert _web(alice).get(f"/memories/{item.pk}/").status_code == 200


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="PostgreSQL's jsonb never stored a lone surrogate"
)
def test_an_answer_holding_broken_text_is_repaired_not_a_500(alice, alice_api):
    item = services.memory_create(user=alice, content="Alice likes green tea")
    KnowledgeItem.objects.filter(pk=item.pk).update(metadata={"k": LONE})  # stored long ago

    response = alice_api.get("/api/v1/memories/")

    assert response.status_code == 200
    assert response.json()["results"][0]["metadata"] == {"k": "\ufffd"}
