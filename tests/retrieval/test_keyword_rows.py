"""The keyword stage reads its rows' text with its own statement; the rest of the stage is
unchanged by it (same ids, same order, only rows search may return). Its two searches
(every word, then any) are one statement, and so is the read of the remaining rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conversations.services.recording import turn_append
from memory.corpus import ITEMS, KNOWLEDGE_FTS
from memory.services import memory_create, memory_forget
from retrieval import candidates, fusion, keyword
from retrieval.linked import Linked

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
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
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
    where = keyword.Where(owner_id=alice.pk).add(
        "t.owner_id = %s", alice.pk
    )  # no "active" clause of its own
    found = candidates.candidates(ITEMS, alice.pk, "bees", where, 20)
    assert items[1].pk not in found
    assert found[items[0].pk].text == "Alice keeps bees on the balcony"
    assert found[items[0].pk].covered == 1.0


def test_rows_holding_every_word_come_first_and_both_searches_are_one_statement(alice, items):
    keyword.search(KNOWLEDGE_FTS, "bees balcony", alice_scope(alice), 10)  # counts words once
    with CaptureQueriesContext(connection) as queries:
        hits = keyword.search(KNOWLEDGE_FTS, "bees balcony", alice_scope(alice), 10)
    assert [i for i, _ in hits][0] == items[0].pk  # holds both words
    assert {i for i, _ in hits} == {items[0].pk, items[1].pk}  # then those holding one
    assert len(queries) == 1, [q["sql"][:80] for q in queries]
    top = keyword.search(KNOWLEDGE_FTS, "bees balcony", alice_scope(alice), 1)
    assert [i for i, _ in top] == [items[0].pk]


def test_finishing_a_search_reads_the_rows_linked_evidence_is_for_beside_its_own(alice, commit):
    with commit():
        said = turn_append(user=alice, session_id="s", role="user", content="We moved to Porto")
        other = turn_append(user=alice, session_id="s", role="user", content="I sing in a choir")
        moved = memory_create(user=alice, content="Alice lives in Porto", source_turn=said)
        sings = memory_create(user=alice, content="Alice sings", source_turn=other)
        memory_create(user=alice, content="Alice likes figs")
    evidence = {said.pk: fusion.Fused(said.pk, 0.5, frozenset({"conversation"}), 0.7)}
    linked = Linked(ITEMS.source_column, evidence)
    started = candidates.start(ITEMS, alice.pk, "sings", alice_scope(alice), 20)
    found, elsewhere = candidates.finish(started, [linked])
    assert elsewhere == {moved.pk: evidence[said.pk]}  # the row its evidence is for
    assert found[sings.pk].text == "Alice sings"  # the search's own rows, read as before
    assert sings.pk not in elsewhere  # its turn gave no evidence


def alice_scope(alice):
    return keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
