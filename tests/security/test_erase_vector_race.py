"""A vector computed before an erase is not stored after it (the race the closing note of
the judge round named): a turn is embedded with the end of the turn it answers, so the
guard is the whole text a vector was built from, not only the turn's own content."""

import numpy as np

from conversations.corpus import TURNS
from conversations.models import Turn
from conversations.services.recording import turn_append
from memory import services
from memory.corpus import ITEMS
from privacy import services as privacy_services
from privacy.services import REDACTED
from retrieval.documents import texts_for
from retrieval.embedding import get_embedder, store

MARK = "quillfrond9"


def test_a_reply_vector_built_from_an_erased_turn_is_not_saved_after_the_erase(
    alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        source = turn_append(
            user=alice, session_id="chat", role="user", content=f"My dog is called {MARK} now"
        )
        reply = turn_append(user=alice, session_id="chat", role="assistant", content="Lovely")
        item = services.memory_create(
            user=alice, content=f"User's dog is called {MARK}", source_turn=source
        )
    # A worker reads the reply's text (with the copy of the earlier turn) and embeds it...
    text, guard = texts_for(TURNS, alice.pk, [reply.pk])[reply.pk]
    assert MARK in text
    vector = get_embedder().embed([text])[0]
    # ...meanwhile the item and the copy of its turn are erased...
    with django_capture_on_commit_callbacks(execute=True):
        privacy_services.memory_erase(user=alice, item_id=item.pk)
    reply.refresh_from_db()
    assert reply.context_text == REDACTED
    after_erase = reply.embedding
    # ...and the worker's late save stores nothing.
    model_id = get_embedder().model_id
    assert store.save_vectors(TURNS, alice.pk, model_id, [(reply.pk, guard, vector)]) == []
    assert Turn.objects.get(pk=reply.pk).embedding == after_erase


def test_a_vector_of_unchanged_text_is_saved(alice):
    item = services.memory_create(user=alice, content="Plays padel on Thursdays")
    text, guard = texts_for(ITEMS, alice.pk, [item.pk])[item.pk]
    vector = np.ones(get_embedder().dim, dtype=np.float32)
    assert store.save_vectors(ITEMS, alice.pk, "probe-model", [(item.pk, guard, vector)]) == [
        item.pk
    ]
