"""mem0's filter grammar as conditions on a person's items (memory.item_conditions)."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from memory import item_conditions as conditions
from memory.models import KnowledgeItem
from memory.services import memory_create


@pytest.fixture
def items(alice, bob):
    made = {
        "email": {"source": "email", "priority": 3, "tags": ["urgent", "work"]},
        "chat": {"source": "chat", "priority": 7, "note": "Reply by Friday"},
        "none": {},
        "null": {"source": None, "priority": "high"},
    }
    out = {}
    for name, metadata in made.items():
        out[name] = memory_create(
            user=alice, content=f"Alice keeps the {name} record in Porto", metadata=metadata
        )
    # Bob's row matches every condition below: it must never be counted for alice.
    memory_create(user=bob, content="Bob keeps the email record in Porto",
                  metadata={"source": "email", "priority": 3})  # fmt: skip
    return out


def names(user, q, items) -> set[str]:
    ids = set(KnowledgeItem.objects.for_user(user).filter(q).values_list("pk", flat=True))
    return {name for name, item in items.items() if item.pk in ids}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"source": "email"}, {"email"}),
        ({"source": {"eq": "chat"}}, {"chat"}),
        ({"source": {"ne": "email"}}, {"chat", "none", "null"}),
        ({"source": {"in": ["email", "chat"]}}, {"email", "chat"}),
        ({"source": {"nin": ["email"]}}, {"chat", "none", "null"}),
        ({"priority": {"gt": 3}}, {"chat"}),
        ({"priority": {"gte": 3}}, {"email", "chat"}),
        ({"priority": {"lt": 7}}, {"email"}),
        ({"priority": {"lte": 7}}, {"email", "chat"}),
        ({"priority": {"gte": "a"}}, {"null"}),  # strings compare with strings only
        ({"note": {"contains": "Friday"}}, {"chat"}),
        ({"note": {"contains": "friday"}}, set()),
        ({"note": {"icontains": "friday"}}, {"chat"}),
        ({"tags": {"contains": "urgent"}}, {"email"}),
        ({"source": "*"}, {"email", "chat"}),
        ({"source": "email", "priority": 3}, {"email"}),
    ],
)
def test_metadata_conditions_pick_exactly_the_matching_items(alice, items, value, expected):
    assert names(alice, conditions.metadata(value), items) == expected


def test_negation_and_alternatives_combine_as_q(alice, items):
    q = ~conditions.metadata({"source": "email"}) & conditions.categories({"in": ["fact"]})
    assert names(alice, q, items) == {"chat", "none", "null"}
    q = conditions.metadata({"source": "chat"}) | conditions.metadata({"priority": "high"})
    assert names(alice, q, items) == {"chat", "null"}


def test_dates_take_days_and_instants(alice, items):
    KnowledgeItem.objects.filter(pk=items["email"].pk).update(
        created_at=datetime(2024, 1, 15, 10, tzinfo=UTC)
    )
    KnowledgeItem.objects.filter(pk=items["chat"].pk).update(
        created_at=datetime(2024, 2, 1, 0, 30, tzinfo=UTC)
    )
    january = conditions.dated("created_at", {"gte": "2024-01-01"}) & conditions.dated(
        "created_at", {"lt": "2024-02-01T00:00:00Z"}
    )
    assert names(alice, january, items) == {"email"}
    assert names(alice, conditions.dated("created_at", "2024-02-01"), items) == {"chat"}
    assert names(alice, conditions.dated("created_at", {"lte": "2024-02-01"}), items) == {
        "email", "chat"}  # fmt: skip
    assert names(alice, conditions.dated("created_at", {"gt": "2024-01-15"}), items) == {
        "chat", "none", "null"}  # fmt: skip


def test_keywords_categories_and_ids(alice, items):
    assert names(alice, conditions.keywords({"contains": "chat record"}), items) == {"chat"}
    assert names(alice, conditions.keywords({"contains": "CHAT"}), items) == set()
    assert names(alice, conditions.keywords({"icontains": "CHAT"}), items) == {"chat"}
    assert names(alice, conditions.categories({"contains": "FAC"}), items) == set(items)
    ids = [str(items["none"].pk), "not-an-id"]
    assert names(alice, conditions.memory_ids(ids), items) == {"none"}


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("metadata", {"source": {"between": [1, 2]}}, "metadata.source: the operator 'between'"),
        ("metadata", {"a__b": 1}, "is not a key"),
        ("metadata", {"priority": {"gt": True}}, "compare with a number or a string"),
        ("metadata", {"source": {"in": []}}, "in takes a list"),
        ("metadata", [], "takes an object of keys"),
        ("created_at", {"gte": "last week"}, "is not a date or ISO datetime"),
        ("categories", {"eq": "fact"}, "the operator 'eq' is not offered"),
        ("keywords", {"icontains": " "}, "non-empty string"),
        ("keywords", {"contains": "tea\x00"}, "keywords:"),
        ("metadata", {"source": "\ud800"}, "metadata:"),
    ],
)
def test_a_malformed_condition_names_the_field_and_its_shape(db, field, value, named):
    with pytest.raises(ValidationError) as raised:
        conditions.condition(field, value)
    assert named in str(raised.value)
