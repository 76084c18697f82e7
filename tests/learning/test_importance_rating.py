"""The model's importance rating, however it writes it, is stored with the fact."""

import pytest

from learning.facts import facts_store
from learning.llm import shapes
from memory.models import KnowledgeItem


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (0.9, 0.9),
        ("0.25", 0.25),
        ("80%", 0.8),
        (8, 0.8),  # a score out of 10
        (4, 0.8),  # a score out of 5
        ("High", 0.9),
        ("low", 0.3),
        (None, None),
        (True, None),
        ("very", None),
        (-1, None),
        (float("nan"), None),
        (1000, None),
    ],
)
def test_a_rating_is_read_on_any_common_scale(given, stored):
    assert shapes.importance(given) == stored


def test_operations_carry_the_rating_and_unrated_facts_get_their_categorys(db, alice):
    answer = shapes.operations(
        {
            "operations": [
                {"op": "ADD", "content": "User's name is Alice", "importance": "9"},
                {"op": "add", "content": "User saw a red car today", "category": "note"},
            ]
        }
    )
    rated, unrated = answer["operations"]
    assert rated["importance"] == 0.9 and "importance" not in unrated
    stored = facts_store(
        user=alice,
        facts=[{k: v for k, v in op.items() if k != "op"} for op in (rated, unrated)],
        source="llm_extract",
    )
    items = {i.content: i.importance for i in KnowledgeItem.objects.for_user(alice)}
    assert items["User's name is Alice"] == 0.9
    assert items["User saw a red car today"] < 0.5  # a note, from extraction
    assert all("error" not in result for result in stored)
