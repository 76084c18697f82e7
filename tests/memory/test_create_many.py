"""memory_create_many: the outcome of one memory_create per entry, written in bulk."""

import random

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.services import user_settings_update
from memory import services
from memory.batch_store import BatchWords
from memory.changes import items_generation
from memory.dedup import DEDUP_THRESHOLD, word_overlap
from memory.models import KnowledgeItem
from tests.commits import rows_per_commit

pytestmark = pytest.mark.django_db

STORED = [
    {"content": "Alice drinks oat milk in her coffee", "category": "preference"},
    {"content": "The team standup is at nine every morning", "context": "work"},
    {"content": "Bob's birthday is on the fourth of May", "entity": "person:bob"},
]
BATCH = [
    # repeats stored 0 (all its words): folds, newer content wins, confidence is the max
    {
        "content": "alice drinks oat milk in her coffee.",
        "category": "preference",
        "confidence": 0.95,
    },
    {"content": "Plans a trip to Lisbon in June"},
    # repeats entry 1 of this batch
    {"content": "Plans a trip to Lisbon in June!", "metadata": {"with": "Tom"}},
    # same words as stored 1, other context: a new row
    {"content": "The team standup is at nine every morning", "context": "home"},
    {"content": "The team standup is at nine every morning", "context": "work", "sensitive": True},
    # repeats stored 0 again, as entry 0 left it
    {"content": "Alice drinks oat milk in her coffee", "category": "preference"},
    {
        "content": "Bob's birthday is on the Fourth of May",
        "entity": "Person:Bob",
        "domain": "family",
    },
    # repeats entry 3 (its context), not the stored item of the same words
    {"content": "The team standup is at nine every morning!", "context": "home"},
    {"content": "plans a trip to Lisbon in June", "due_at": "2026-06-01"},
    # says something else than entry 1 in most of its words: a new row, linked to it
    {"content": "Plans a trip to Lisbon in July"},
    # and than stored 2: linked to it
    {"content": "Bob's birthday is on the fifth of May", "entity": "person:bob"},
]
FOLDED = [True, False, True, False, True, True, True, True, True, False, False]
FIELDS = (
    "content", "category", "context", "entity", "domain", "sensitive", "confidence",
    "source", "metadata", "due_at", "forgotten_at", "superseded_by_id",
)  # fmt: skip


def outcome(user, returned: list[KnowledgeItem]) -> tuple[list, list]:
    """Returned items and stored rows, with ids as positions among the user's rows."""
    rows = list(KnowledgeItem.objects.for_user(user).order_by("pk"))
    position = {row.pk: n for n, row in enumerate(rows)}
    position[None] = None
    shown = [
        (
            position[i.pk],
            i.deduplicated,
            i.outcome,
            position[i.conflicts_with_id],
            *(getattr(i, name) for name in FIELDS),
        )
        for i in returned
    ]
    stored = [
        (position[row.conflicts_with_id], *(getattr(row, name) for name in FIELDS)) for row in rows
    ]
    return shown, stored


@pytest.mark.parametrize("source", ["tool", "user"])
def test_a_batch_stores_exactly_what_one_write_per_entry_would(alice, bob, source):
    for user in (alice, bob):
        for entry in STORED:
            services.memory_create(user=user, **entry)
    in_bulk = services.memory_create_many(user=alice, items=BATCH, source=source)
    with transaction.atomic():
        one_by_one = [services.memory_create(user=bob, source=source, **e) for e in BATCH]
    assert [i.deduplicated for i in in_bulk] == FOLDED
    assert outcome(alice, in_bulk) == outcome(bob, one_by_one)
    july, fifth = in_bulk[-2:]
    assert (july.outcome, july.conflicts_with_id) == ("conflict", in_bulk[1].pk)
    assert fifth.outcome == "conflict" and fifth.conflicts_with.content.lower().endswith(
        "fourth of may"
    )


def test_an_entry_repeating_an_earlier_entry_folds_into_its_row(alice):
    first, again, other = services.memory_create_many(
        user=alice,
        items=[
            {"content": "Alice keeps bees on her balcony", "confidence": 0.6},
            {"content": "alice keeps bees on her balcony.", "metadata": {"n": 2}},
            {"content": "Alice keeps two cats"},
        ],
    )
    assert [first.deduplicated, again.deduplicated, other.deduplicated] == [False, True, False]
    assert first.pk == again.pk != other.pk
    assert first.content == "Alice keeps bees on her balcony"  # as that entry created it
    row = KnowledgeItem.objects.get(pk=first.pk)
    assert row.content == again.content == "alice keeps bees on her balcony."
    assert row.confidence == 0.7 and row.metadata == {"n": 2}
    assert KnowledgeItem.objects.for_user(alice).count() == 2


def test_an_entry_repeating_a_stored_item_folds_into_it(alice):
    stored = services.memory_create(user=alice, content="Bob's birthday is on the fourth of May")
    [folded, new] = services.memory_create_many(
        user=alice,
        items=[
            {"content": "bob's birthday is on the fourth of May!", "confidence": 0.9},
            {"content": "Bob's birthday is on the fourth of May", "context": "work"},
        ],
    )
    assert folded.deduplicated and folded.pk == stored.pk
    assert not new.deduplicated and new.pk != stored.pk
    stored.refresh_from_db()
    assert stored.content == "bob's birthday is on the fourth of May!"
    assert stored.confidence == 0.9
    assert KnowledgeItem.objects.for_user(alice).count() == 2


def test_another_users_items_are_never_folded_into(alice, bob):
    services.memory_create(user=bob, content="Plans a trip to Lisbon in June")
    [item] = services.memory_create_many(
        user=alice, items=[{"content": "Plans a trip to Lisbon in June"}]
    )
    assert not item.deduplicated and item.owner_id == alice.pk


@pytest.mark.parametrize(
    "bad, index",
    [
        ({"content": "key sk-abcdefghijklmnopqrstuvwxyz123456"}, 2),
        ({"content": "ok", "confidence": 5}, 2),
        ({"content": "ok", "colour": "red"}, 2),
        ({"category": "fact"}, 2),
        ("just text", 2),
    ],
)
def test_a_bad_entry_stores_nothing_and_names_its_index(alice, bad, index):
    stored = services.memory_create(user=alice, content="Alice drinks oat milk in her coffee")
    generation = items_generation(alice.pk)
    items = [
        {"content": "Alice drinks oat milk in her coffee every day"},  # would fold
        {"content": "A new fact about tulips"},
        bad,
        {"content": "Another fine fact"},
    ]
    with pytest.raises(ValidationError) as error:
        services.memory_create_many(user=alice, items=items)
    assert list(error.value.message_dict) == [str(index)]
    assert list(KnowledgeItem.objects.for_user(alice)) == [stored]
    assert KnowledgeItem.objects.get(pk=stored.pk).content == stored.content
    assert items_generation(alice.pk) == generation


def test_memory_turned_off_refuses_a_batch_at_its_first_entry_but_not_a_person(alice):
    user_settings_update(user=alice, memory_enabled=False)
    with pytest.raises(ValidationError) as error:
        services.memory_create_many(user=alice, items=[{"content": "a"}, {"content": "b"}])
    assert list(error.value.message_dict) == ["0"]
    items = [{"content": "typed by a person"}]
    assert services.memory_create_many(user=alice, items=items, source="user")[0].pk


def test_a_batch_is_one_insert_and_one_generation_bump(alice):
    services.memory_create(user=alice, content="Already here")
    generation = items_generation(alice.pk)
    with CaptureQueriesContext(connection) as queries:
        items = services.memory_create_many(
            user=alice, items=[{"content": f"Batch fact number {n}"} for n in range(30)]
        )
    inserts = [q for q in queries if q["sql"].startswith('INSERT INTO "memory_knowledgeitem"')]
    assert len(inserts) == 1 and len({i.pk for i in items}) == 30
    assert items_generation(alice.pk) == generation + 1
    assert [i.pk for i in items] == sorted(i.pk for i in items)  # ids in entry order


def test_batch_words_finds_every_set_past_the_threshold():
    rng = random.Random(5)
    vocabulary = [f"w{n}" for n in range(40)]
    sets = [set(rng.sample(vocabulary, rng.randint(1, 14))) for _ in range(400)]
    seen = BatchWords(sets)
    scope = ("fact", "global", "")
    for n, words in enumerate(sets):
        expected = {(1, m) for m in range(n) if word_overlap(words, sets[m]) > DEDUP_THRESHOLD}
        assert expected <= seen.candidates(scope, words)
        assert not seen.candidates(("note", "global", ""), words)
        seen.add((1, n), scope, words)


@pytest.mark.django_db(transaction=True)
def test_a_large_batch_is_validated_whole_then_written_in_short_transactions(alice, monkeypatch):
    """Another writer never waits for a whole batch: each transaction holds one chunk."""
    monkeypatch.setattr(services, "BATCH_CHUNK", 5, raising=False)
    monkeypatch.setattr(services, "BATCH_CHUNK_MAX", 10, raising=False)
    entries = [{"content": f"Distinct batch fact {n} about topic{n}"} for n in range(45)]
    with pytest.raises(ValidationError):  # a bad last entry: nothing at all is stored
        services.memory_create_many(user=alice, items=[*entries, {"content": ""}])
    assert not KnowledgeItem.objects.exists()

    with rows_per_commit(KnowledgeItem) as sizes:
        items = services.memory_create_many(user=alice, items=entries)

    assert len(items) == 45 and sum(sizes) == 45
    assert len(sizes) >= 5 and max(sizes) <= 10
    assert [i.content for i in KnowledgeItem.objects.order_by("pk")] == [
        e["content"] for e in entries
    ]
