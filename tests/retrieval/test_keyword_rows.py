"""The keyword stage reads its rows' text with its own statement; the rest of the stage is
unchanged by it (same ids, same order, only rows search may return)."""

import pytest

from memory.services import memory_create, memory_forget
from retrieval import keyword, pipeline
from retrieval.corpus import ITEMS
from retrieval.fulltext_schema import KNOWLEDGE_FTS

pytestmark = pytest.mark.django_db


@pytest.fixture
def items(alice, commit):
    with commit():
        return [
            memory_create(user=alice, content=text)
            for text in (
                "Alice keeps bees on the balcony",
                "The bees swarmed in May",
                "Alice repaired her bicycle",
            )
        ]


def test_search_rows_gives_each_hit_its_columns_in_the_order_search_gives_ids(alice, items):
    where = keyword.Where().add("t.owner_id = %s", alice.pk)
    plain = keyword.search(KNOWLEDGE_FTS, "bees balcony", where, 10)
    rows = keyword.search_rows(
        KNOWLEDGE_FTS, "bees balcony", where, 10, columns=("t.content", "t.category")
    )
    assert [(i, s) for i, s, _ in rows] == plain
    texts = {item.pk: item.content for item in items}
    assert [values for _, _, values in rows] == [(texts[i], "fact") for i, _ in plain]
    assert {i for i, _ in plain} == {items[0].pk, items[1].pk}


def test_candidates_never_propose_a_forgotten_row_even_when_the_scope_omits_it(alice, items):
    memory_forget(user=alice, item_id=items[1].pk)
    where = keyword.Where().add("t.owner_id = %s", alice.pk)  # no "active" clause of its own
    found = pipeline.candidates(ITEMS, alice.pk, "bees", where, 20)
    assert items[1].pk not in found
    assert found[items[0].pk].text == "Alice keeps bees on the balcony"
    assert found[items[0].pk].covered == 1.0
