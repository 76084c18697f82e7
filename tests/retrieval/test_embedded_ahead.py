"""A single write embeds its text before its transaction and stores the vector inside it:
the write takes the database's write lock once, and the commit only updates the index."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conversations.services import recording
from conversations.services.recording import turn_append
from memory.recall import recall
from memory.services import memory_create, memory_update
from retrieval import late_writes
from retrieval.documents import turn_text
from retrieval.embedding import from_bytes, get_embedder

pytestmark = pytest.mark.django_db


def vector_of(text: str) -> np.ndarray:
    return get_embedder().embed([text])[0]


def stored(row) -> np.ndarray | None:
    row.refresh_from_db()
    return None if row.embedding is None else from_bytes(row.embedding, 384)


def writes_among(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT"))]


def test_a_new_item_has_its_vector_before_its_transaction_commits(
    alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        item = memory_create(user=alice, content="Alice keeps bees on her balcony")
        assert np.allclose(stored(item), vector_of("Alice keeps bees on her balcony"), atol=1e-6)


def test_the_commit_of_a_single_write_writes_nothing_more(
    alice, django_capture_on_commit_callbacks, settings, monkeypatch
):
    settings.GAIA_LATE_WRITES = "background"  # token vectors: handed to the process's writer
    handed: list[tuple[str, list[int]]] = []
    monkeypatch.setattr(
        late_writes._writer, "submit", lambda corpus, owner, ids: handed.append((corpus.name, ids))
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        item = memory_create(user=alice, content="Alice's bike has a basket")
        turn = turn_append(user=alice, session_id="s1", role="user", content="Hello there")
    with CaptureQueriesContext(connection) as queries:
        for callback in callbacks:
            callback()
    assert writes_among(queries.captured_queries) == []
    assert sorted(handed) == [("items", [item.pk]), ("turns", [turn.pk])]
    # ... and the index the commit updated answers with the vector stored ahead.
    assert [hit.item.pk for hit in recall(user=alice, query="bicycle with a basket")][:1] == [
        item.pk
    ]
    assert stored(turn) is not None


def test_a_changed_text_gets_its_new_vector_in_the_same_transaction(
    alice, commit, django_capture_on_commit_callbacks
):
    with commit():
        item = memory_create(user=alice, content="Alice drives a red bicycle to work")
    with django_capture_on_commit_callbacks(execute=False):
        memory_update(user=alice, item_id=item.pk, content="Alice takes the night train home")
        assert np.allclose(stored(item), vector_of("Alice takes the night train home"), atol=1e-6)


def test_a_turn_is_embedded_ahead_with_the_turn_it_answers(
    alice, commit, django_capture_on_commit_callbacks
):
    with commit():
        turn_append(user=alice, session_id="s1", role="assistant", content="What did you do?")
    with django_capture_on_commit_callbacks(execute=False):
        turn = turn_append(
            user=alice, session_id="s1", role="user", speaker="Alice", content="I went hiking."
        )
        expected = "Alice: I went hiking.\n(in reply to: What did you do?)"
        assert np.allclose(stored(turn), vector_of(expected), atol=1e-6)


def test_a_text_that_changed_on_the_way_is_not_stored_ahead_but_embedded_after_commit(
    alice, commit, django_capture_on_commit_callbacks, monkeypatch
):
    """Another turn lands before this one between the read ahead and the write: the vector
    ahead (of the old context) is not the row's, so the commit embeds the real text."""
    stale = recording._turn_text_ahead

    def ahead_then_another_turn(user, fields):
        text = stale(user, fields)
        if fields["content"] == "A trip to Oslo":
            with commit():
                turn_append(
                    user=alice,
                    session_id="s1",
                    role="assistant",
                    content="Any plans?",
                    timestamp="2020-01-01T00:00:00Z",  # before the turn being written
                )
        return text

    monkeypatch.setattr(recording, "_turn_text_ahead", ahead_then_another_turn)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        turn = turn_append(user=alice, session_id="s1", role="user", content="A trip to Oslo")
        assert stored(turn) is None
    for callback in callbacks:
        callback()
    real = turn_text(speaker="", role="user", content="A trip to Oslo", context_text="Any plans?")
    assert np.allclose(stored(turn), vector_of(real), atol=1e-6)


def test_a_remote_embedder_is_not_called_ahead(alice, commit, remote_embedder):
    with commit():
        memory_create(user=alice, content="Alice's flat is on the third floor")
    assert remote_embedder.requests == []  # queued for a worker, as before
