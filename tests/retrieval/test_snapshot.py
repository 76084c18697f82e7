"""What recall reads before it searches, in one statement: the owner's generations, and
whether any of their items came from a turn (then the turns are searched too)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conversations.corpus import TURNS
from conversations.services.recording import turn_append
from memory.corpus import ITEMS
from memory.services import memory_create, memory_forget
from retrieval.generations import generation_read, snapshot

pytestmark = pytest.mark.django_db


def test_an_owner_who_never_wrote_has_generation_0_and_no_linked_items(alice):
    with CaptureQueriesContext(connection) as queries:
        state = snapshot(alice.pk)
    assert len(queries) == 1
    assert state.generations == {ITEMS.name: 0, TURNS.name: 0}
    assert state.sourced == frozenset()


def test_it_reads_both_generations_and_sees_the_first_linked_item(alice, bob, commit):
    with commit():
        turn = turn_append(user=alice, session_id="s", role="user", content="I moved to Porto")
        memory_create(user=alice, content="Alice likes figs")
    state = snapshot(alice.pk)
    assert state.generations == {c.name: generation_read(c, alice.pk) for c in (ITEMS, TURNS)}
    assert state.generations[ITEMS.name] > 0 and state.generations[TURNS.name] > 0
    assert state.sourced == frozenset()
    with commit():
        linked = memory_create(user=alice, content="Alice lives in Porto", source_turn=turn)
    assert snapshot(alice.pk).sourced == {ITEMS.name}
    assert snapshot(bob.pk).sourced == frozenset()  # another owner's links are not bob's
    memory_forget(user=alice, item_id=linked.pk)
    assert snapshot(alice.pk).generations[ITEMS.name] > state.generations[ITEMS.name]
