"""A batch written through memory_create_many is searchable at once, both ways."""

import random

import pytest
from django.db import connection

from bench.loadbench.seed import words
from memory.corpus import ITEMS, KNOWLEDGE_FTS
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create, memory_create_many
from retrieval import keyword
from retrieval.embedding import current_dim, current_model_id, from_bytes, get_embedder
from retrieval.embedding.services import embeddings_missing
from retrieval.indexes import index_for
from tests.recall_fixtures import ALICE_FACTS

pytestmark = pytest.mark.django_db

FACTS = [*ALICE_FACTS, "Alice keeps bees on her balcony"]


@pytest.fixture
def embed_calls(monkeypatch) -> list[int]:
    """How many texts each call of the local embedder got."""
    embedder = get_embedder()
    calls: list[int] = []
    real = embedder.embed

    def embed(texts: list[str]):
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed", embed)
    return calls


def test_a_batch_is_embedded_in_one_call_of_the_local_embedder(alice, commit, embed_calls):
    rng = random.Random(3)
    texts = [words(rng, 6) for _ in range(50)]  # no two near-duplicates
    with commit():
        items = memory_create_many(user=alice, items=[{"content": t} for t in texts])
    assert len({i.pk for i in items}) == len(texts) and embed_calls == [len(texts)]
    assert embeddings_missing(user=alice) == {"items": 0, "turns": 0}
    for row in KnowledgeItem.objects.for_user(alice):
        assert row.embedding_model == current_model_id()
        assert from_bytes(row.embedding, current_dim()) is not None


def test_a_batch_is_embedded_before_its_transaction_and_not_again_on_commit(
    alice, commit, monkeypatch
):
    """One model run over the whole batch, with no write transaction of the batch open
    (the vectors find near-duplicates and are stored with the rows)."""
    embedder = get_embedder()
    runs: list[tuple[int, int]] = []  # (open transactions, texts) of each model run
    real = embedder._embed_now

    def embed_now(texts: list[str]):
        runs.append((len(connection.savepoint_ids), len(texts)))
        return real(texts)

    monkeypatch.setattr(embedder, "_embed_now", embed_now)
    rng = random.Random(5)
    texts = [words(rng, 6) for _ in range(20)]
    outside = len(connection.savepoint_ids)  # the test's own transaction
    with commit():
        memory_create_many(user=alice, items=[{"content": t} for t in texts])
    assert runs == [(outside, 20)]
    assert embeddings_missing(user=alice) == {"items": 0, "turns": 0}


def test_batch_items_are_found_by_keyword_and_by_vector_right_after(alice, commit):
    with commit():
        memory_create(user=alice, content="Alice likes hiking")
    index = index_for(ITEMS, alice.pk, current_model_id(), current_dim())  # cached, then kept
    with commit():
        items = memory_create_many(user=alice, items=[{"content": text} for text in FACTS])
    assert index_for(ITEMS, alice.pk, current_model_id(), current_dim()) is index
    assert all(item.pk in index for item in items)
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    assert [i for i, _ in keyword.search(KNOWLEDGE_FTS, "ThinkPad", where, 5)] == [items[4].pk]
    hits = recall(user=alice, query="food intolerance", top_k=1, min_relevance=0)  # no word
    assert [(h.item.pk, h.matched_by) for h in hits] == [(items[1].pk, "vector")]
    hits = recall(user=alice, query="honey insects", top_k=1, min_relevance=0)
    assert [(h.item.pk, h.matched_by) for h in hits] == [(items[5].pk, "vector")]


def test_a_fold_into_a_stored_item_replaces_its_vector(alice, commit):
    with commit():
        stored = memory_create(user=alice, content="Alice drives a red bicycle to work")
    before = bytes(KnowledgeItem.objects.get(pk=stored.pk).embedding)
    with commit():
        [folded] = memory_create_many(
            user=alice, items=[{"content": "alice drives a red bicycle to work."}]
        )
    row = KnowledgeItem.objects.get(pk=stored.pk)
    assert folded.deduplicated and row.embedding is not None and bytes(row.embedding) != before
