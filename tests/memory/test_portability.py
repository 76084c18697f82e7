"""Backup and restore: export then import is lossless and idempotent, through the services."""

import json
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from accounts.models import Agent
from accounts.services import token_create
from conversations.models import ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from core import chunks
from memory import lineage, services
from memory.models import KnowledgeItem
from memory.portability import check, export, store
from retrieval import events
from retrieval.embedding import hooks
from tests.commits import rows_per_commit

pytestmark = pytest.mark.django_db
COMPARED = (
    "content", "category", "domain", "context", "entity", "sensitive", "pinned", "source",
    "confidence", "importance", "metadata", "use_count", "created_at", "updated_at",
    "last_used", "due_at", "reminded_at", "forgotten_at",
)  # fmt: skip


def exported(user) -> list[bytes]:
    return list(export.export_lines(user=user))


def history(user) -> set[tuple]:
    """Every item with its fields and its lineage (by content, ids differ between accounts)."""
    rows = KnowledgeItem.objects.for_user(user).select_related("superseded_by", "source_turn")
    return {
        (
            *(json.dumps(getattr(item, name), sort_keys=True, default=str) for name in COMPARED),
            item.superseded_by.content if item.superseded_by else None,
            item.source_turn.content if item.source_turn else None,
            tuple(
                (v.content, v.source, v.change_source, v.reason, v.created_at.isoformat())
                for v in item.versions.order_by("created_at", "pk")
            ),
        )
        for item in rows
    }


def active(user) -> set[str]:
    return set(KnowledgeItem.objects.for_user(user).active().values_list("content", flat=True))


@pytest.fixture
def rich(alice):
    """Alice's memory with everything an import can get wrong."""
    turn = turn_append(user=alice, session_id="s1", role="user", content="My number changed")
    tool_call_record(user=alice, tool_name="maps", session_id="s1", args={"q": "Berlin"})
    first = services.memory_create(
        user=alice, content="Alice's phone number is 555 0100 at home", source_turn=turn
    )
    second = lineage.memory_supersede(  # a correction nearly as worded as the old fact
        user=alice, item_id=first.pk, content="Alice's phone number is 555 0199 at home",
        source="user",
    )  # fmt: skip
    lineage.memory_supersede(
        user=alice, item_id=second.pk, content="Alice's phone number is 555 0142 at home",
        source="user",
    )  # fmt: skip
    older = services.memory_create(user=alice, content="Alice works at Initech")
    newer = services.memory_create(user=alice, content="Alice works at Globex now")
    lineage.memory_supersede_by(user=alice, item_id=older.pk, by_id=newer.pk)
    gone = services.memory_create(user=alice, content="Alice likes loud music", metadata={"k": [1]})
    services.memory_forget(user=alice, item_id=gone.pk)
    twin = services.memory_create(user=alice, content="Alice walks the dog every morning")
    other = services.memory_create(user=alice, content="Placeholder text")
    services.memory_update(  # two active near-duplicates: both are memories of hers
        user=alice, item_id=other.pk, content="Alice walks the dog every morning early"
    )
    services.memory_create(
        user=alice, content="Alice is a vegetarian", category="profile", source="user",
        confidence=0.95, due_at=timezone.now(),
    )  # fmt: skip
    services.memory_touch(user=alice, item_ids=[twin.pk])
    return alice


def test_export_then_import_into_an_empty_account_reproduces_every_item_with_its_history(rich, bob):
    lines = exported(rich)

    first = store.import_lines(user=bob, lines=lines, trusted=True)

    assert first["created"] == {
        "sessions": 1, "turns": 1, "tool_calls": 1, "knowledge": 7, "entities": 0, "relations": 0
    }  # fmt: skip
    assert active(bob) == active(rich)
    assert "Alice's phone number is 555 0142 at home" in active(bob)
    assert history(bob) == history(rich)
    turn = Turn.objects.for_user(bob).get()
    assert turn.timestamp == Turn.objects.for_user(rich).get().timestamp
    assert ToolCall.objects.for_user(bob).get().session.owner == bob

    second = store.import_lines(user=bob, lines=lines, trusted=True)

    assert sum(second["created"].values()) == 0
    assert second["skipped"] == {
        "sessions": 1, "turns": 1, "tool_calls": 1, "knowledge": 7, "entities": 0, "relations": 0
    }  # fmt: skip
    assert history(bob) == history(rich)


def _file(*records: dict, version: int = 2, end: bool = True) -> list[bytes]:
    header = {"type": "header", "format": "gaia-memory-export", "version": version}
    body = [header, *records]
    if end:
        body.append({"type": "end", "records": len(records)})
    return [(json.dumps(r) + "\n").encode() for r in body]


def _item(content: str, **fields) -> dict:
    return {"type": "knowledge", "content": content, **fields}


def test_an_older_backup_never_undoes_a_correction_made_since(alice):
    lines = _file(
        _item("Alice's phone number is 555 0100 at home", updated_at="2020-01-01T00:00:00Z"),
        _item("Alice drives a red car to work", updated_at="2030-01-01T00:00:00Z"),
    )
    corrected = services.memory_create(
        user=alice, content="Alice's phone number is 555 0142 at home"
    )
    older = services.memory_create(user=alice, content="Alice drives a blue car to work")

    result = store.import_lines(user=alice, lines=lines)

    # the older phone number is left out; the newer car is another fact, kept beside it
    assert result["created"]["knowledge"] == 1 and result["skipped"]["knowledge"] == 1
    assert KnowledgeItem.objects.get(pk=corrected.pk).content == corrected.content  # kept
    assert KnowledgeItem.objects.get(pk=older.pk).content == "Alice drives a blue car to work"
    red = KnowledgeItem.objects.for_user(alice).get(content="Alice drives a red car to work")
    assert red.conflicts_with_id == older.pk  # a possible conflict, for reconciliation
    assert KnowledgeItem.objects.for_user(alice).count() == 3
    assert sum(store.import_lines(user=alice, lines=lines)["created"].values()) == 0


def test_a_superseded_item_is_stored_linked_to_its_successor_never_active(alice):
    """However the file is ordered: the successor first, or after the item it replaced."""
    lines = _file(
        _item("Lives in Porto by the river", id=7, superseded_by=9),
        _item("Lives in Lisbon by the river", id=9, superseded_by=3),
        _item("Moved to Madrid", id=3),
        _item("Works at the bakery", id=1),
        _item("Worked at the bakery downtown", id=2, superseded_by=1),
    )
    seen: list[set[str]] = []
    events.listen(lambda corpus, *_: corpus.name == "items" and seen.append(active(alice)))
    try:
        store.import_lines(user=alice, lines=lines)
    finally:
        events._listeners.pop()

    assert active(alice) == {"Moved to Madrid", "Works at the bakery"}
    assert all(state <= {"Moved to Madrid", "Works at the bakery"} for state in seen)
    by_content = {i.content: i for i in KnowledgeItem.objects.for_user(alice)}
    assert by_content["Lives in Porto by the river"].superseded_by.content.startswith("Lives in L")
    assert (
        by_content["Worked at the bakery downtown"].superseded_by.content == "Works at the bakery"
    )


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (_item("x", metadata={"k": "\ud800"}), "lone surrogate"),
        (_item("x", metadata={"\udfff": 1}), "lone surrogate"),
        (_item("x\u0000y"), "NUL"),
        (_item("x", metadata={"a\u0000": 1}), "NUL"),
        (_item("x", entity="\udc80"), "lone surrogate"),
        ({"type": "tool_call", "tool_name": "t", "timestamp": "2024-01-01T00:00:00Z",
          "args": {"q": ["\ud83d"]}}, "lone surrogate"),  # half of an emoji
        ({"type": "turn", "session_id": "s", "role": "user", "content": "\ud800",
          "timestamp": "2024-01-01T00:00:00Z"}, "lone surrogate"),
    ],
)  # fmt: skip
def test_text_that_is_not_valid_unicode_is_refused_naming_its_line(alice, record, problem):
    lines = _file(_item("A fine first record"), record)
    with pytest.raises(ValidationError) as error:
        store.import_lines(user=alice, lines=lines)
    assert list(error.value.message_dict) == ["line 3"]
    assert problem in str(error.value.message_dict["line 3"])
    assert not KnowledgeItem.objects.exists() and not Turn.objects.exists()


@pytest.mark.skipif(
    connection.vendor != "sqlite",
    reason="PostgreSQL refuses to store a lone surrogate at all: there is no bad row to repair",
)
def test_the_export_repairs_bad_text_of_stored_rows_and_counts_it(alice, bob):
    item = services.memory_create(user=alice, content="Kept with odd metadata")
    KnowledgeItem.objects.filter(pk=item.pk).update(metadata={"k": "a\ud800b", "n": 1})

    lines = exported(alice)

    records = [json.loads(line.decode("utf-8")) for line in lines]  # strict UTF-8
    assert records[1]["metadata"] == {"k": "a\ufffdb", "n": 1}
    assert records[-1] == {
        "type": "end",
        "records": 1,
        "repaired": 1,
        "counts": {
            "sessions": 0, "turns": 0, "tool_calls": 0, "knowledge": 1, "entities": 0,
            "relations": 0,
        },
    }  # fmt: skip
    assert store.import_lines(user=bob, lines=lines)["created"]["knowledge"] == 1


@pytest.mark.parametrize(
    "cut",
    [
        lambda lines: lines[:-1],  # the last line is missing
        lambda lines: lines[:2] + lines[3:],  # a record is missing
        lambda lines: [*lines, lines[1]],  # something after the last line
    ],
)
def test_a_file_cut_short_or_changed_is_refused(alice, bob, cut):
    services.memory_create(user=alice, content="First fact")
    services.memory_create(user=alice, content="Second fact")
    with pytest.raises(ValidationError):
        store.import_lines(user=bob, lines=cut(exported(alice)))
    assert not KnowledgeItem.objects.for_user(bob).exists()


def test_a_version_1_file_without_its_count_is_still_imported(alice):
    lines = _file(_item("From an older server"), version=1, end=False)
    assert store.import_lines(user=alice, lines=lines)["created"]["knowledge"] == 1


def test_imported_turns_and_items_are_announced_for_embedding(alice, bob, monkeypatch):
    turn_append(user=alice, session_id="s", role="user", content="One turn to embed")
    services.memory_create(user=alice, content="One item to embed")
    lines = exported(alice)
    heard: dict[str, set[int]] = {"turns": set(), "items": set()}
    monkeypatch.setattr(events, "_listeners", [lambda c, o, up, rm, g: heard[c.name].update(up)])

    store.import_lines(user=bob, lines=lines)

    assert heard["turns"] == set(Turn.objects.for_user(bob).values_list("pk", flat=True))
    assert heard["items"] == set(KnowledgeItem.objects.for_user(bob).values_list("pk", flat=True))
    assert heard["turns"] and heard["items"]


@pytest.mark.django_db(transaction=True)
def test_an_import_is_written_in_short_transactions(alice, bob, monkeypatch):
    """Another writer never waits for a whole import: each transaction holds one chunk."""
    monkeypatch.setattr(store, "CHUNK_FIRST", 5, raising=False)
    monkeypatch.setattr(store, "CHUNK_MAX", 10, raising=False)
    services.memory_create_many(
        user=alice, items=[{"content": f"Fact number {n} about topic{n}"} for n in range(60)]
    )
    lines = [line if isinstance(line, bytes) else line.encode() for line in exported(alice)]

    with rows_per_commit(KnowledgeItem) as sizes:
        store.import_lines(user=bob, lines=lines)

    assert sum(sizes) == 60 and len(sizes) >= 6 and max(sizes) <= 10


def test_line_breaks_inside_text_never_split_an_exported_record(alice, bob):
    """U+2028, U+2029 and U+0085 are line breaks to splitlines and to JavaScript: the
    export escapes them, so every record stays on its line and comes back intact."""
    text = "Alice\u2028writes\u2029poems\x85at night"
    services.memory_create(user=alice, content=text, pinned=True)
    turn_append(user=alice, session_id="s1", role="user", content=f"I said: {text}")
    lines = exported(alice)
    assert all(len(line.decode().splitlines()) == 1 for line in lines)
    store.import_lines(user=bob, lines=b"".join(lines).decode().splitlines(True), trusted=True)
    item = KnowledgeItem.objects.for_user(bob).get()
    assert (item.content, item.pinned) == (text, True)
    assert Turn.objects.for_user(bob).get().content == f"I said: {text}"


def test_the_agent_that_wrote_each_row_travels_with_it(alice, bob):
    mail = token_create(user=alice, name="laptop", agent_name="mail-assistant")[0].agent
    turn = turn_append(user=alice, session_id="s", role="user", content="hi", agent=mail)
    tool_call_record(user=alice, tool_name="send_mail", session_id="s", agent=mail)
    services.memory_create(user=alice, content="User's dentist is Dr Ruiz", agent=mail)
    services.memory_create(user=alice, content="User likes figs", source="user")
    records = [json.loads(line) for line in exported(alice)]
    assert {(r["type"], r.get("agent")) for r in records if r["type"] != "header"} >= {
        ("turn", "mail-assistant"), ("tool_call", "mail-assistant"),
        ("knowledge", "mail-assistant"), ("knowledge", None),
    }  # fmt: skip

    store.import_lines(user=bob, lines=exported(alice), trusted=True)

    bobs = Agent.objects.get(owner=bob)  # his own agent of that name, not alice's
    assert bobs.name == "mail-assistant" and bobs.pk != mail.pk
    assert Turn.objects.for_user(bob).get().agent == bobs
    assert ToolCall.objects.for_user(bob).get().agent == bobs
    agents = dict(KnowledgeItem.objects.for_user(bob).values_list("content", "agent"))
    assert agents == {"User's dentist is Dr Ruiz": bobs.pk, "User likes figs": None}
    assert turn.agent == mail  # alice's rows untouched


@pytest.mark.django_db(transaction=True)
def test_the_embedding_after_each_commit_does_not_shrink_the_next_chunk(alice, bob, monkeypatch):
    """A chunk is sized by how long its transaction holds the lock. Embedding the new
    rows runs after commit, holding none: a slow embedder must not cut chunks to one row."""
    services.memory_create_many(
        user=alice, items=[{"content": f"Fact number {n} about topic{n}"} for n in range(315)]
    )
    lines = exported(alice)
    clock = [0.0]  # the chunks' clock: only the embedding after commit takes time
    monkeypatch.setattr(chunks, "time", SimpleNamespace(monotonic=lambda: clock[0], sleep=id))
    embed = hooks.sync_committed

    def slow_embedding(*args, **kwargs) -> None:
        clock[0] += 2.0
        embed(*args, **kwargs)

    monkeypatch.setattr(hooks, "sync_committed", slow_embedding)

    with rows_per_commit(KnowledgeItem) as sizes:
        result = store.import_lines(user=bob, lines=lines)

    assert result["created"]["knowledge"] == 315
    assert sizes == [50, 100, 165]  # each chunk twice the last, up to the file's end


def test_a_tokens_import_creates_no_agents_and_names_only_the_accounts_own(alice):
    """A file can name any agent: through a token, 1,000 names create nothing, and a row
    keeps only an agent the account has."""
    mail = token_create(user=alice, name="laptop", agent_name="mail-assistant")[0].agent
    records = [
        _item(f"Imported fact number {n}", agent=f"agent-{n}", created_at="2024-01-01T00:00:00Z")
        for n in range(1000)
    ]
    records.append(_item("User's dentist is Dr Ruiz", agent="mail-assistant"))
    records.append({"type": "turn", "session_id": "s", "role": "user", "content": "hi",
                    "timestamp": "2024-01-01T00:00:00Z", "agent": "agent-7"})  # fmt: skip

    result = store.import_lines(user=alice, lines=_file(*records))

    assert result["created"]["knowledge"] == 1001
    assert list(Agent.objects.filter(owner=alice)) == [mail]
    agents = dict(KnowledgeItem.objects.for_user(alice).values_list("content", "agent"))
    assert agents["User's dentist is Dr Ruiz"] == mail.pk
    assert agents["Imported fact number 7"] is None
    assert Turn.objects.for_user(alice).get().agent is None


def test_the_owners_import_creates_the_agents_it_names_up_to_a_bound(alice):
    few = [_item(f"Fact {n}", agent=f"helper-{n}") for n in range(check.NEW_AGENTS_MAX)]
    store.import_lines(user=alice, lines=_file(*few), trusted=True)
    assert Agent.objects.filter(owner=alice).count() == check.NEW_AGENTS_MAX

    many = [_item(f"Other fact {n}", agent=f"bot-{n}") for n in range(1000)]
    with pytest.raises(ValidationError) as refused:
        store.import_lines(user=alice, lines=_file(*few, *many), trusted=True)

    # the header and the 20 known names come first: the 21st new one is on line 42
    assert "line 42" in str(refused.value) and "more than 20 agents" in str(refused.value)
    assert Agent.objects.filter(owner=alice).count() == check.NEW_AGENTS_MAX
    assert KnowledgeItem.objects.for_user(alice).count() == check.NEW_AGENTS_MAX


@pytest.mark.parametrize("source", ["llm_extract", "discovery", "error_auto", "consolidation"])
def test_a_tokens_import_stores_items_as_a_tokens_writes_whatever_source_they_claim(alice, source):
    version = {"content": "Dog is Rex", "source": source, "change_source": source,
               "confidence": 1.0, "created_at": "2023-01-01T00:00:00Z"}  # fmt: skip
    lines = _file(_item("Dog is Bruno", source=source, confidence=1.0, versions=[version]))

    store.import_lines(user=alice, lines=lines)

    item = KnowledgeItem.objects.for_user(alice).get()
    assert (item.source, item.confidence) == ("tool", 0.7)
    old = item.versions.get()
    assert (old.source, old.change_source, old.confidence) == ("tool", "tool", 0.7)


def test_the_owners_import_keeps_the_sources_of_the_file(alice):
    lines = _file(_item("Dog is Bruno", source="llm_extract", confidence=0.4))
    store.import_lines(user=alice, lines=lines, trusted=True)
    item = KnowledgeItem.objects.for_user(alice).get()
    assert (item.source, item.confidence) == ("llm_extract", 0.4)
