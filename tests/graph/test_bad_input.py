"""Bad input to the graph API answers a clear 400, never a 500 (issue #41): ids past
what the database holds, another person's relation ids in a split, a `current` filter
that is neither true nor false; and an import's relation may only be ended by another
relation of the same subject and type."""

import pytest

from graph.models import Relation
from graph.services import entity_create, relation_add, relations_import_ends

pytestmark = pytest.mark.django_db
TOO_BIG = 2**63
RELATIONS = "/api/v1/graph/relations/"


@pytest.mark.parametrize(
    "body",
    [
        {"subject": "me", "type": "knows", "object": "Rui", "turn_ids": [TOO_BIG]},
        {"subject": "me", "type": "knows", "object": "Rui", "memory_ids": [TOO_BIG]},
        {"subject": TOO_BIG, "type": "knows", "object": "Rui"},
        {"subject": "me", "type": "knows", "object": -1},
    ],
    ids=["turn-id", "memory-id", "subject-id", "negative-object"],
)
def test_an_id_past_2_63_or_below_1_is_a_400_naming_its_field(alice_api, body):
    answer = alice_api.post(RELATIONS, body, format="json")
    assert answer.status_code == 400, answer.content
    assert set(answer.json()["error"]["fields"]) & {
        "turn_ids.0",
        "memory_ids.0",
        "subject",
        "object",
        "turn_ids",
        "memory_ids",
    }
    assert not Relation.objects.exists()


def test_the_largest_id_is_simply_no_such_row(alice_api):
    body = {"subject": "me", "type": "knows", "object": "Rui", "turn_ids": [2**63 - 1]}
    answer = alice_api.post(RELATIONS, body, format="json")
    assert answer.status_code == 400 and "turn_ids" in answer.json()["error"]["fields"]


def test_merging_an_entity_past_2_63_is_a_400(alice, alice_api):
    rui = entity_create(user=alice, name="Rui", kind="person")
    answer = alice_api.post(
        f"/api/v1/graph/entities/{rui.pk}/merge/", {"other": TOO_BIG}, format="json"
    )
    assert answer.status_code == 400 and "other" in answer.json()["error"]["fields"]


@pytest.mark.parametrize("value", ["maybe", "", "2", "truthy"])
def test_current_must_be_true_or_false(alice_api, value):
    answer = alice_api.get(RELATIONS, {"current": value})
    assert answer.status_code == 400 and "current" in answer.json()["error"]["fields"]


def test_current_true_and_false_filter(alice, alice_api):
    me = entity_create(user=alice, name="Ana", kind="person")
    rui = entity_create(user=alice, name="Rui", kind="person")
    relation_add(user=alice, subject=me, type="knows", object=rui)
    assert alice_api.get(RELATIONS, {"current": "true"}).json()["count"] == 1
    assert alice_api.get(RELATIONS, {"current": "FALSE"}).json()["count"] == 0


def test_a_split_refuses_another_persons_relation_ids(alice, bob, alice_api):
    rui = entity_create(user=alice, name="Rui", kind="person")
    bobs = relation_add(
        user=bob,
        subject=entity_create(user=bob, name="Bo", kind="person"),
        type="knows",
        object=entity_create(user=bob, name="Cy", kind="person"),
    )
    answer = alice_api.post(
        f"/api/v1/graph/entities/{rui.pk}/split/",
        {"name": "Rui Senior", "relation_ids": [bobs.pk]},
        format="json",
    )
    assert answer.status_code == 400 and "relation_ids" in answer.json()["error"]["fields"]
    bobs.refresh_from_db()
    assert bobs.owner == bob and bobs.subject.name == "Bo"


def test_an_imported_end_must_be_another_relation_that_ends_this_one(alice):
    me = entity_create(user=alice, name="Ana", kind="person")
    atelier = entity_create(user=alice, name="Atelier", kind="organisation")
    bank = entity_create(user=alice, name="Banco", kind="organisation")
    old = Relation.objects.create(
        owner=alice,
        subject=me,
        type="works_at",
        object=atelier,
        valid_from="2020-01-01T00:00Z",
        valid_to="2024-01-01T00:00Z",
    )
    holding = Relation.objects.create(
        owner=alice, subject=me, type="works_at", object=bank, valid_from="2024-01-01T00:00Z"
    )
    other = Relation.objects.create(
        owner=alice, subject=bank, type="knows", object=atelier, valid_from="2024-01-01T00:00Z"
    )
    pairs = [(old.pk, old.pk), (holding.pk, old.pk), (old.pk, other.pk)]
    assert relations_import_ends(user=alice, ends=pairs) == 0
    assert relations_import_ends(user=alice, ends=[(old.pk, holding.pk)]) == 1
    old.refresh_from_db()
    assert old.ended_by_id == holding.pk
