import json

import pytest

from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from memory import lineage, services
from memory.models import KnowledgeItem
from tests.support import assert_error

pytestmark = pytest.mark.django_db
NO_GRAPH = {"entities": 0, "relations": 0}
JSONL = "application/x-ndjson"


def export(client) -> list[dict]:
    response = client.get("/api/v1/export/")
    assert response.status_code == 200
    assert response["Content-Type"] == JSONL
    assert "attachment" in response["Content-Disposition"]
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def to_body(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_it_reports_stats_entities_contexts_and_activity(alice_api, alice):
    services.memory_create(user=alice, content="A", entity="project:gaia", context="work")
    services.memory_create(user=alice, content="B", entity="project:gaia", category="skill")
    turn_append(user=alice, session_id="s", role="user", content="one two three four five six")
    tool_call_record(user=alice, tool_name="t", success=False)
    stats = alice_api.get("/api/v1/stats/").json()
    assert stats["knowledge"]["active"] == 2
    assert stats["knowledge"]["by_category"] == {"fact": 1, "skill": 1}
    assert stats["knowledge"]["by_context"] == {"global": 1, "work": 1}
    assert stats["conversations"] == {"sessions": 1, "turns": 1}
    assert stats["tool_calls"] == {"total": 1, "failed": 1}
    assert stats["extraction"]["pending"] == 1
    assert "coverage" in stats["embeddings"]
    entities = alice_api.get("/api/v1/entities/").json()["results"]
    assert [(e["entity"], e["count"]) for e in entities] == [("project:gaia", 2)]
    contexts = alice_api.get("/api/v1/contexts/", {"limit": 1}).json()["results"]
    assert len(contexts) == 1
    days = alice_api.get("/api/v1/activity/", {"days": 7}).json()["results"]
    assert len(days) == 7 and days[-1]["memories"] == 2 and days[-1]["turns"] == 1


@pytest.mark.parametrize(
    ("url", "params"),
    [
        ("/api/v1/activity/", {"days": 0}),
        ("/api/v1/activity/", {"days": 366}),
        ("/api/v1/activity/", {"days": "month"}),
        ("/api/v1/entities/", {"limit": 0}),
        ("/api/v1/contexts/", {"limit": "all"}),
    ],
)
def test_it_refuses_bad_account_parameters(alice_api, url, params):
    assert_error(alice_api.get(url, params), 400)


def test_it_exports_everything_with_lineage_and_no_embeddings(alice_api, alice):
    turn = turn_append(user=alice, session_id="s1", role="user", content="I live in Berlin")
    tool_call_record(user=alice, tool_name="maps", session_id="s1", args={"q": "Berlin"})
    old = services.memory_create(user=alice, content="Lives in Berlin", source_turn=turn)
    new = lineage.memory_supersede(
        user=alice, item_id=old.pk, content="Lives in Lisbon", source="llm_extract"
    )
    gone = services.memory_create(user=alice, content="Forgotten thing")
    services.memory_forget(user=alice, item_id=gone.pk)
    KnowledgeItem.objects.filter(pk=new.pk).update(embedding=b"\x00" * 16, embedding_model="m")
    records = export(alice_api)
    assert records[0]["type"] == "header" and records[0]["format"] == "gaia-memory-export"
    kinds = [r["type"] for r in records[1:]]
    assert kinds == ["session", "turn", "tool_call", "knowledge", "knowledge", "end"]
    assert records[-1]["records"] == 5 and records[-1]["repaired"] == 0
    items = {r["content"]: r for r in records if r["type"] == "knowledge"}
    [version] = items["Lives in Lisbon"]["versions"]
    assert (version["content"], version["change_source"]) == ("Lives in Berlin", "llm_extract")
    assert items["Lives in Lisbon"]["superseded_by"] is None and new.pk == old.pk
    assert items["Forgotten thing"]["forgotten_at"]
    assert all("embedding" not in r and "embedding_model" not in r for r in records)
    assert all("owner" not in r for r in records)


def test_an_import_recreates_the_memory_and_a_second_import_adds_nothing(
    alice_api, bob_api, bob, alice
):
    turn = turn_append(user=alice, session_id="s1", role="user", content="I live in Berlin")
    tool_call_record(user=alice, tool_name="maps", session_id="s1", args={"q": "Berlin"})
    old = services.memory_create(user=alice, content="Lives in Berlin", source_turn=turn)
    lineage.memory_supersede(user=alice, item_id=old.pk, content="Lives in Lisbon", source="tool")
    gone = services.memory_create(user=alice, content="Forgotten thing", metadata={"k": [1]})
    services.memory_forget(user=alice, item_id=gone.pk)
    body = to_body(export(alice_api))

    first = bob_api.post("/api/v1/import/", body, content_type=JSONL)
    assert first.status_code == 200, first.content
    assert first.json()["created"] == {
        "sessions": 1,
        "turns": 1,
        "tool_calls": 1,
        "knowledge": 2,
        **NO_GRAPH,
    }
    second = bob_api.post("/api/v1/import/", body, content_type=JSONL).json()
    assert second["created"] == {
        "sessions": 0,
        "turns": 0,
        "tool_calls": 0,
        "knowledge": 0,
        **NO_GRAPH,
    }
    assert second["skipped"] == {
        "sessions": 1,
        "turns": 1,
        "tool_calls": 1,
        "knowledge": 2,
        **NO_GRAPH,
    }

    items = {i.content: i for i in KnowledgeItem.objects.for_user(bob)}
    assert [v.content for v in items["Lives in Lisbon"].versions.all()] == ["Lives in Berlin"]
    history = bob_api.get(f"/api/v1/memories/{items['Lives in Lisbon'].pk}/history/").json()
    assert [e["content"] for e in history["results"]] == ["Lives in Lisbon", "Lives in Berlin"]
    assert items["Forgotten thing"].forgotten_at is not None
    assert items["Forgotten thing"].metadata == {"k": [1]}
    assert Turn.objects.for_user(bob).get().timestamp == turn.timestamp
    assert ToolCall.objects.for_user(bob).get().session.owner == bob
    # importing into the account it came from also adds nothing
    again = alice_api.post("/api/v1/import/", body, content_type=JSONL).json()
    assert sum(again["created"].values()) == 0


HEADER = {"type": "header", "format": "gaia-memory-export", "version": 1}


def with_header(*records: dict) -> bytes:
    return to_body([HEADER, *records])


@pytest.mark.parametrize(
    "body",
    [
        b"",
        to_body([{"type": "knowledge", "content": "no header"}]),
        to_body([{"type": "header", "format": "other", "version": 1}]),
        to_body([{**HEADER, "version": 99}]),
        with_header() + b"{not json\n",
        with_header() + b"[1, 2]\n",
        with_header({"type": "mystery"}),
        with_header({"type": "knowledge", "content": ""}),
        with_header({"type": "knowledge", "content": "x", "category": "gossip"}),
        with_header({"type": "knowledge", "content": "x", "created_at": "yesterday"}),
        with_header({"type": "knowledge", "content": "x", "metadata": {"bad": "\u0000"}}),
        with_header({"type": "knowledge", "content": "x", "metadata": {"n": 1e400}}),
        with_header(
            {"type": "knowledge", "content": "x", "created_at": "9999-12-31T23:00:00-12:00"}
        ),
        with_header({"type": "knowledge", "content": "password is hunter22"}),
        with_header(
            {
                "type": "turn",
                "session_id": "s",
                "role": "narrator",
                "content": "x",
                "timestamp": "2024-01-01T00:00:00Z",
            }
        ),
        with_header(
            {
                "type": "tool_call",
                "tool_name": "t",
                "timestamp": "2024-01-01T00:00:00Z",
                "duration_ms": -5,
            }
        ),
        # a good first record, then a bad one: all or nothing
        with_header({"type": "knowledge", "content": "fine"}, {"type": "knowledge"}),
        # lists and objects where text is expected, and other wrong types
        with_header({"type": "knowledge", "content": ["x"]}),
        with_header({"type": "knowledge", "content": {"a": 1}}),
        with_header({"type": "knowledge", "content": "x", "source": ["user"]}),
        with_header({"type": "knowledge", "content": "x", "category": {"a": 1}}),
        with_header({"type": "knowledge", "content": "x", "sensitive": "yes"}),
        with_header({"type": "knowledge", "content": "x", "use_count": True}),
        with_header({"type": "knowledge", "content": "x", "id": [1]}),
        with_header({"type": "knowledge", "content": "x", "colour": "red"}),
        with_header({"type": "session", "session_id": ["s"]}),
        with_header(
            {
                "type": "turn",
                "session_id": {},
                "role": "user",
                "content": "x",
                "timestamp": "2024-01-01T00:00:00Z",
            }
        ),
        with_header(
            {
                "type": "turn",
                "session_id": "s",
                "role": ["user"],
                "content": "x",
                "timestamp": "2024-01-01T00:00:00Z",
            }
        ),
        with_header(
            {
                "type": "tool_call",
                "tool_name": "t",
                "timestamp": "2024-01-01T00:00:00Z",
                "success": "no",
            }
        ),
        with_header({"type": "tool_call", "tool_name": "t", "timestamp": ["2024"]}),
        # links that do not hold: a missing successor, a cycle
        with_header({"type": "knowledge", "id": 1, "content": "x", "superseded_by": 2}),
        with_header(
            {"type": "knowledge", "id": 1, "content": "x", "superseded_by": 2},
            {"type": "knowledge", "id": 2, "content": "y", "superseded_by": 1},
        ),
        # text that is not valid Unicode, NUL, non-finite numbers, bad UTF-8
        with_header({"type": "knowledge", "content": "x", "metadata": {"k": "\ud800"}}),
        with_header({"type": "knowledge", "content": "x\u0000"}),
        with_header() + b'{"type": "knowledge", "content": "x", "confidence": NaN}\n',
        with_header() + b'{"type": "knowledge", "content": "\xff\xfe"}\n',
    ],
)
def test_a_bad_import_is_a_400_and_stores_nothing(alice_api, alice, body):
    response = alice_api.post("/api/v1/import/", body, content_type=JSONL)
    error = assert_error(response, 400)
    if body.count(b"\n") > 1:  # a bad line is named
        assert any(name.startswith("line ") for name in error.get("fields", {})), error
    assert KnowledgeItem.objects.for_user(alice).count() == 0
    assert Session.objects.for_user(alice).count() == 0


def test_an_import_is_refused_as_plain_json(alice_api):
    assert_error(alice_api.post("/api/v1/import/", {"a": 1}, format="json"), 415)


@pytest.mark.cross_user("api-stats", "api-entities", "api-contexts", "api-activity")
def test_account_views_count_only_the_callers_rows(bob_api, alice, near_twins):
    services.memory_create(user=alice, content="extra", entity="person:alice_only")
    stats = bob_api.get("/api/v1/stats/").json()
    assert stats["knowledge"]["active"] == 2
    assert stats["conversations"] == {"sessions": 1, "turns": 1}
    assert stats["tool_calls"]["total"] == 1
    entities = bob_api.get("/api/v1/entities/").json()["results"]
    assert entities == []
    assert bob_api.get("/api/v1/contexts/").json()["results"] == [{"context": "global", "count": 2}]
    today = bob_api.get("/api/v1/activity/", {"days": 1}).json()["results"][0]
    assert (today["memories"], today["turns"], today["tool_calls"]) == (2, 1, 1)


@pytest.mark.cross_user("api-export", "api-import")
def test_export_and_import_stay_inside_one_account(alice_api, bob_api, alice, bob, near_twins):
    exported = json.dumps(export(bob_api))
    assert "bob" in exported and "alice" not in exported
    alice_id = near_twins["alice"].pk
    before = KnowledgeItem.objects.filter(pk=alice_id).values().get()
    # ids in a file only link records of that file: naming alice's rows changes nothing
    header = {"type": "header", "format": "gaia-memory-export", "version": 1}
    records = [
        header,
        {
            "type": "knowledge",
            "id": alice_id,
            "content": "Bob's own old fact",
            "superseded_by": alice_id + 1,
            "source_turn": 1,
        },
        {"type": "knowledge", "id": alice_id + 1, "content": "Bob's own new fact"},
        {
            "type": "turn",
            "session_id": "shared-session",
            "role": "user",
            "content": "bob adds",
            "timestamp": "2024-01-01T00:00:00Z",
        },
    ]
    response = bob_api.post("/api/v1/import/", to_body(records), content_type=JSONL)
    assert response.status_code == 200, response.content
    assert KnowledgeItem.objects.filter(pk=alice_id).values().get() == before
    assert KnowledgeItem.objects.for_user(alice).count() == 2
    assert Turn.objects.for_user(alice).count() == 1
    assert Session.objects.for_user(alice).get().turns.count() == 1
    imported = KnowledgeItem.objects.for_user(bob).get(content="Bob's own old fact")
    assert imported.superseded_by.owner == bob and imported.source_turn is None
