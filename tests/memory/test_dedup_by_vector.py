"""Write-time dedup through what a write computes anyway: its vector against the person's
index finds the items it may repeat, with no full-text query per written row; a remote
embedder (nothing embedded ahead) keeps the full-text lookup."""

import pytest

from memory import dedup
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_create_many
from retrieval import pipeline

pytestmark = pytest.mark.django_db

OTHERS = [
    "Jonas prefers dark roast coffee before meetings",
    "User's sister Maya lives in Lisbon",
    "User plays padel on Thursdays with Rui",
    "The team retro is on Thursdays at 3pm",
    "User is allergic to penicillin",
]


@pytest.fixture
def no_fulltext(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a full-text query per written row")

    monkeypatch.setattr(pipeline, "keyword_ids", refuse)


def test_a_single_write_folds_and_links_by_its_vector(
    alice, django_capture_on_commit_callbacks, no_fulltext
):
    with django_capture_on_commit_callbacks(execute=True):
        memory_create_many(user=alice, items=[{"content": text} for text in OTHERS])
    with django_capture_on_commit_callbacks(execute=True):
        again = memory_create(user=alice, content="user is ALLERGIC to penicillin!!")
        fuller = memory_create(user=alice, content="User plays padel on Thursdays with Rui at 7pm")
        corrected = memory_create(user=alice, content="The team retro is on Fridays at 3pm")
        new = memory_create(user=alice, content="User's dentist is Dr. Okafor")
    assert again.outcome == "deduplicated" and fuller.outcome == "deduplicated"
    assert fuller.content == "User plays padel on Thursdays with Rui at 7pm"  # the fuller text
    assert corrected.outcome == "conflict"
    assert corrected.conflicts_with.content == "The team retro is on Thursdays at 3pm"
    assert new.outcome == "new"
    assert KnowledgeItem.objects.for_user(alice).count() == len(OTHERS) + 2


def test_a_batch_finds_stored_repeats_by_vector_and_its_own_in_memory(
    alice, django_capture_on_commit_callbacks, no_fulltext
):
    with django_capture_on_commit_callbacks(execute=True):
        memory_create_many(user=alice, items=[{"content": text} for text in OTHERS])
    with django_capture_on_commit_callbacks(execute=True):
        items = memory_create_many(
            user=alice,
            items=[
                {"content": "User's sister Maya lives in Lisbon."},
                {"content": "User's sister Maya lives in Porto"},
                {"content": "User's sister Maya lives in Porto now"},
            ],
        )
    assert [i.outcome for i in items] == ["deduplicated", "conflict", "deduplicated"]


def test_only_the_scope_of_the_write_is_compared(
    alice, django_capture_on_commit_callbacks, no_fulltext
):
    with django_capture_on_commit_callbacks(execute=True):
        memory_create(user=alice, content="User is allergic to penicillin", context="health")
        other = memory_create(user=alice, content="User is allergic to penicillin", context="work")
    assert other.outcome == "new"


def test_bobs_items_are_never_candidates(
    alice, bob, django_capture_on_commit_callbacks, no_fulltext
):
    with django_capture_on_commit_callbacks(execute=True):
        memory_create(user=bob, content="User is allergic to penicillin")
        mine = memory_create(user=alice, content="User is allergic to penicillin")
    assert mine.outcome == "new" and mine.conflicts_with is None


def test_without_vectors_ahead_the_fulltext_lookup_still_folds(
    alice, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(dedup, "ahead_vectors", lambda texts: None)  # a remote embedder
    with django_capture_on_commit_callbacks(execute=True):
        memory_create(user=alice, content="User is allergic to penicillin")
        again = memory_create(user=alice, content="User: allergic to penicillin!")
        other = memory_create(user=alice, content="User is not allergic to penicillin")
    assert again.outcome == "deduplicated" and other.outcome == "conflict"
