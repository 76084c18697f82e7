"""Token vectors are erased with what they were computed from: the item, the person, the
copy of an erased turn that a reply keeps as its context."""

import numpy as np
import pytest

from conversations.models import Turn
from conversations.services.recording import turn_append
from memory import services
from memory.models import KnowledgeItem
from privacy import services as privacy_services
from privacy.services import REDACTED
from retrieval import tokens
from retrieval.documents import turn_text

pytestmark = pytest.mark.django_db
MARK = "vexmorrow3"


def _closeness(stored: bytes, text: str) -> float:
    """How alike the stored vectors are to `text` encoded now (mean best cosine)."""
    mine = tokens.unpack(stored)
    fresh = tokens.encoder().encode([text])[0]
    return float((fresh @ mine.T).max(axis=1).mean())


def test_erasing_an_item_takes_its_token_vectors_and_reencodes_the_reply_without_it(
    alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        source = turn_append(
            user=alice, session_id="chat", role="user", content=f"My dog is called {MARK} now"
        )
        reply = turn_append(user=alice, session_id="chat", role="assistant", content="Lovely!")
        item = services.memory_create(
            user=alice, content=f"User's dog is called {MARK}", source_turn=source
        )
    reply.refresh_from_db()
    before = bytes(reply.tokens)
    assert MARK in reply.context_text and reply.tokens_model == tokens.MODEL_ID

    with django_capture_on_commit_callbacks(execute=True):
        privacy_services.memory_erase(user=alice, item_id=item.pk)

    assert not KnowledgeItem.objects.filter(pk=item.pk).exists()
    assert Turn.objects.get(pk=source.pk).tokens is None  # the redacted turn: none kept
    reply.refresh_from_db()
    assert reply.context_text == REDACTED and bytes(reply.tokens) != before
    now = turn_text(speaker="", role="assistant", content="Lovely!", context_text=REDACTED)
    was = turn_text(
        speaker="", role="assistant", content="Lovely!", context_text=f"My dog is called {MARK} now"
    )
    assert _closeness(reply.tokens, now) > _closeness(reply.tokens, was)


def test_erasing_a_person_leaves_no_token_vectors_of_theirs(
    alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.memory_create(user=alice, content=f"Alice's locker code is {MARK}")
        turn_append(user=alice, session_id="s", role="user", content=f"Locker {MARK}")
        kept = services.memory_create(user=bob, content="Bob's locker is number 12")
    assert KnowledgeItem.objects.filter(owner=alice).exclude(tokens=None).exists()

    with django_capture_on_commit_callbacks(execute=True):
        privacy_services.memory_erase_user(user=alice)

    rows = [*KnowledgeItem.objects.exclude(tokens=None), *Turn.objects.exclude(tokens=None)]
    assert [row.owner_id for row in rows] == [bob.pk]
    assert rows[0].pk == kept.pk
    assert np.isfinite(tokens.unpack(rows[0].tokens)).all()
