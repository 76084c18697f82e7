"""The graph travels with an export: entities (names, kinds, aliases, the items about
them) and relations (when they held, what ended them, their items and turns) come back
in another account as they were, once however often the file is imported."""

import json
from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from conversations.models import Turn
from conversations.services.recording import turn_append
from graph.models import Entity, Mention, Relation
from graph.services import (
    entity_alias_add,
    entity_create,
    entity_holder,
    entity_link_items,
    relation_add,
)
from memory.models import KnowledgeItem
from memory.portability import export, store
from memory.services import memory_create

pytestmark = pytest.mark.django_db


def when(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


@pytest.fixture
def graphed(alice):
    """Alice's graph: herself, her partner under two names, two employers in turn."""
    said = turn_append(user=alice, session_id="s1", role="user", content="Rui moved to Banco Azul")
    old = memory_create(user=alice, content="Rui worked at Atelier Norte")
    new = memory_create(user=alice, content="Rui works at Banco Azul since March")
    me = entity_holder(user=alice)
    rui = entity_create(user=alice, name="Rui Costa", kind="person", aliases=["my partner"])
    entity_alias_add(user=alice, entity=rui, aliases=["Rui"])
    atelier = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    bank = entity_create(user=alice, name="Banco Azul", kind="organisation")
    entity_link_items(user=alice, entity=rui, item_ids=[old.pk, new.pk])
    relation_add(user=alice, subject=me, type="partner_of", object=rui, valid_from=when(2015, 6))
    relation_add(
        user=alice, subject=rui, type="works_at", object=atelier, item_ids=[old.pk],
        valid_from=when(2019, 1),
    )  # fmt: skip
    relation_add(
        user=alice, subject=rui, type="works_at", object=bank, item_ids=[new.pk],
        turn_ids=[said.pk], valid_from=when(2026, 3),
    )  # fmt: skip
    return alice


def graph_of(user) -> dict:
    """The user's graph by names and contents (ids differ between accounts)."""
    entities = {
        e.name: (e.kind, e.holder, sorted(a.text for a in e.aliases.all()))
        for e in Entity.objects.for_user(user).prefetch_related("aliases")
    }
    items = dict(KnowledgeItem.objects.for_user(user).values_list("pk", "content"))
    mentions = sorted(
        (m.entity.name, items[m.item_id])
        for m in Mention.objects.for_user(user).select_related("entity")
    )
    relations = sorted(
        (
            r.subject.name, r.type, r.object.name, r.valid_from, r.valid_to,
            r.ended_by.object.name if r.ended_by else None,
            tuple(items[i] for i in r.item_ids),
            tuple(t.content for t in r.turns.all()),
        )
        for r in Relation.objects.for_user(user).select_related("subject", "object", "ended_by")
    )  # fmt: skip
    return {"entities": entities, "mentions": mentions, "relations": relations}


def test_the_graph_comes_back_in_another_account_as_it_was_and_only_once(graphed, bob):
    lines = list(export.export_lines(user=graphed))
    kinds = [json.loads(line)["type"] for line in lines]
    assert kinds.count("entity") == 4 and kinds.count("relation") == 3
    before = graph_of(graphed)
    ended = [r for r in before["relations"] if r[2] == "Atelier Norte"]
    assert [r[3:6] for r in ended] == [(when(2019, 1), when(2026, 3), "Banco Azul")]

    first = store.import_lines(user=bob, lines=lines, trusted=True)

    assert first["created"]["entities"] == 4 and first["created"]["relations"] == 3
    assert graph_of(bob) == before
    second = store.import_lines(user=bob, lines=lines, trusted=True)
    assert second["created"]["entities"] == 0 and second["created"]["relations"] == 0
    assert second["skipped"]["entities"] == 4 and second["skipped"]["relations"] == 3
    assert graph_of(bob) == before
    assert Turn.objects.for_user(bob).count() == 1


def test_an_entity_joins_the_one_the_account_already_calls_by_that_name(graphed, bob):
    mine = entity_create(user=bob, name="my partner", kind="thing")
    store.import_lines(user=bob, lines=list(export.export_lines(user=graphed)))
    rui = Entity.objects.for_user(bob).get(pk=mine.pk)
    assert rui.kind == "person"  # a kind learned for an entity named before it was known
    assert {a.text for a in rui.aliases.all()} == {"my partner", "Rui Costa", "Rui"}
    assert Entity.objects.for_user(bob).filter(holder=True).count() == 1


def _file(*records: dict) -> list[bytes]:
    header = {"type": "header", "format": "gaia-memory-export", "version": 3}
    end = {"type": "end", "records": len(records)}
    return [(json.dumps(r) + "\n").encode() for r in (header, *records, end)]


ENTITY = {"type": "entity", "id": 1, "name": "Rui", "kind": "person"}
RELATION = {
    "type": "relation", "id": 5, "subject": 1, "relation": "works_at", "object": 2,
    "valid_from": "2024-01-01T00:00:00+00:00",
}  # fmt: skip


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([ENTITY, RELATION], "line 3.*object: no entity record of this file has id 2"),
        ([{**ENTITY, "items": [7]}], "items: no knowledge record of this file has id 7"),
        ([{**ENTITY, "kind": "wizard"}], "kind: One of"),
        ([{**ENTITY, "aliases": "Rui"}], "aliases"),
        ([ENTITY, {**ENTITY, "id": 2}, {**RELATION, "relation": "owes"}], "relation: One of"),
        ([ENTITY, {**ENTITY, "id": 2}, {**RELATION, "subject": "1"}], "subject: Must be"),
        (
            [ENTITY, {**ENTITY, "id": 2}, {**RELATION, "valid_to": "2023-01-01"}],
            "valid_to: A relation ends after it starts",
        ),
        ([{**ENTITY, "name": "  "}], "name: A name is required"),
        (
            [
                ENTITY,
                {**ENTITY, "id": 2},
                {**RELATION, "valid_to": "2025-01-01T00:00:00+00:00", "ended_by": 5},
            ],
            "ended_by: Another relation ends this one, not itself",
        ),
        (
            [
                ENTITY,
                {**ENTITY, "id": 2},
                {**RELATION, "ended_by": 6},
                {**RELATION, "id": 6, "valid_from": "2025-01-01T00:00:00+00:00"},
            ],
            "ended_by: Only a relation that ended",
        ),
    ],
)
def test_a_bad_graph_record_is_refused_naming_its_line_and_nothing_is_stored(
    alice, records, message
):
    with pytest.raises(ValidationError, match=message):
        store.import_lines(user=alice, lines=_file(*records))
    assert not Entity.objects.for_user(alice).exists()


def test_a_version_2_file_without_a_graph_is_still_imported(alice):
    header = {"type": "header", "format": "gaia-memory-export", "version": 2}
    records = [header, {"type": "knowledge", "content": "Rui likes sardines"}]
    lines = [(json.dumps(r) + "\n").encode() for r in (*records, {"type": "end", "records": 1})]
    result = store.import_lines(user=alice, lines=lines)
    assert result["created"]["knowledge"] == 1 and result["created"]["entities"] == 0
