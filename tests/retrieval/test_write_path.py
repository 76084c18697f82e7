"""Embedding on write: one batch per transaction on commit; remote or failing: a task."""

import pytest
from django.core.management import call_command
from django.db import transaction
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from conversations.services.recording import turn_append, turns_append_many
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.selectors import memory_stats
from memory.services import memory_create, memory_create_many, memory_update
from retrieval.embedding import current_model_id, from_bytes, get_embedder
from retrieval.embedding.services import embeddings_backfill, embeddings_missing

pytestmark = pytest.mark.django_db


FIVE_FACTS = [
    "Alice grows tomatoes",
    "Her brother lives in Oslo",
    "She is allergic to penicillin",
    "The car needs new tyres",
    "Standup moved to ten o'clock",
]


def run_queued_tasks() -> list:
    """Run what a django-q2 worker would, from the real queue rows."""
    results = []
    for row in OrmQ.objects.order_by("id"):
        task = SignedPackage.loads(row.payload)
        module, name = task["func"].rsplit(".", 1)
        function = getattr(__import__(module, fromlist=[name]), name)
        results.append(function(*task["args"], **task["kwargs"]))
        row.delete()
    return results


def test_it_embeds_a_new_item_on_commit_with_the_current_model(alice, commit):
    with commit():
        item = memory_create(user=alice, content="Alice keeps bees on her balcony")
    item.refresh_from_db()
    assert item.embedding_model == current_model_id() == "bge-small-en-v1.5-int8"
    assert from_bytes(item.embedding, 384) is not None


def test_a_rolled_back_write_is_neither_embedded_nor_indexed(alice, commit):
    with commit():
        try:
            with transaction.atomic():
                memory_create(user=alice, content="A secret plan that never happened")
                raise RuntimeError("abort")
        except RuntimeError:
            pass
    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert recall(user=alice, query="secret plan") == []


def test_a_batch_of_writes_is_embedded_in_one_request(alice, commit, remote_embedder):
    with commit():
        memory_create_many(user=alice, items=[{"content": text} for text in FIVE_FACTS])
    assert remote_embedder.requests == []  # remote: the request does not wait for it
    assert run_queued_tasks() == [5]
    assert len(remote_embedder.requests) == 1
    assert len(remote_embedder.requests[0]["input"]) == 5
    assert embeddings_missing(user=alice) == {"items": 0, "turns": 0}


def test_with_a_remote_embedder_keyword_search_finds_the_item_before_its_task_runs(
    alice, commit, remote_embedder
):
    with commit():
        item = memory_create(user=alice, content="The spare key is under the blue flowerpot")
    assert OrmQ.objects.count() == 1
    hits = recall(user=alice, query="where is the spare key")
    assert [(h.item.pk, h.matched_by) for h in hits] == [(item.pk, "keyword")]
    run_queued_tasks()
    hits = recall(user=alice, query="where is the spare key")
    assert [(h.item.pk, h.matched_by) for h in hits] == [(item.pk, "both")]


def test_a_down_embedder_still_saves_the_item_and_keyword_recall_finds_it(alice, commit, settings):
    settings.GAIA_EMBEDDER = "openai"
    settings.GAIA_EMBED_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.GAIA_EMBED_MODEL = "gone"
    settings.GAIA_EMBED_TIMEOUT = 0.5
    with commit():
        item = memory_create(user=alice, content="Bob's birthday is on the fourth of May")
    assert [h.item.pk for h in recall(user=alice, query="birthday")] == [item.pk]
    item.refresh_from_db()
    assert item.embedding is None


def test_changing_the_content_replaces_the_vector(alice, commit):
    with commit():
        item = memory_create(user=alice, content="Alice drives a red bicycle to work")
    item.refresh_from_db()
    before = bytes(item.embedding)
    with commit():
        memory_update(user=alice, item_id=item.pk, content="Alice takes the night train home")
    item.refresh_from_db()
    assert item.embedding is not None and bytes(item.embedding) != before


def test_turns_are_embedded_with_their_speaker_and_the_turn_they_answer(alice, commit):
    with commit():
        first = turn_append(
            user=alice, session_id="s1", role="assistant", content="What did you do today?"
        )
        second = turn_append(
            user=alice, session_id="s1", role="user", speaker="Alice", content="I went hiking."
        )
    second.refresh_from_db()
    assert second.context_text == "What did you do today?"
    assert second.embedding_model == current_model_id()
    first.refresh_from_db()
    assert first.context_text == "" and first.embedding is not None


def test_a_batch_of_turns_is_embedded_in_one_request(alice, commit, remote_embedder):
    with commit():
        turns_append_many(
            user=alice,
            turns=[
                {"session_id": "s", "role": "user", "content": f"message {n}"} for n in range(4)
            ],
        )
    run_queued_tasks()
    assert [len(r["input"]) for r in remote_embedder.requests] == [4]


def test_backfill_embeds_rows_left_by_another_model(alice, commit):
    with commit():
        item = memory_create(user=alice, content="Alice prefers window seats")
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding_model="some-old-model")
    assert embeddings_missing(user=alice)["items"] == 1
    assert memory_stats(user=alice)["embeddings"]["coverage"] == 0.0
    with commit():
        assert embeddings_backfill(limit=10) == 1
    assert embeddings_missing(user=alice)["items"] == 0
    assert memory_stats(user=alice)["embeddings"]["coverage"] == 1.0


def test_backfill_leaves_forgotten_items_alone(alice, commit):
    with commit():
        item = memory_create(user=alice, content="An old address")
    KnowledgeItem.objects.filter(pk=item.pk).update(
        embedding=None, embedding_model="", forgotten_at="2020-01-01T00:00Z"
    )
    assert embeddings_backfill(limit=10) == 0


def test_the_backfill_command_counts_then_embeds_with_progress(alice, commit, capsys):
    with commit():
        memory_create(user=alice, content="Alice collects vinyl records")
        turn_append(user=alice, session_id="s", role="user", content="hello there")
    KnowledgeItem.objects.update(embedding=None, embedding_model="")
    call_command("memory_backfill", "--dry-run", "--user", "alice")
    assert "1 items and 0 turns lack a vector" in capsys.readouterr().out
    with commit():
        call_command("memory_backfill")
    out = capsys.readouterr().out
    assert "embedded 1/1" in out and "Done: 1 embedded, 0 still missing" in out


def test_the_queued_task_is_idempotent(alice, commit, remote_embedder):
    with commit():
        memory_create(user=alice, content="Alice's dentist is Dr. Okafor")
    task = SignedPackage.loads(OrmQ.objects.get().payload)
    from retrieval.tasks import embed_rows_task

    assert embed_rows_task(*task["args"]) == 1
    assert embed_rows_task(*task["args"]) == 0  # already embedded: nothing to do


def test_a_single_remember_runs_the_embedding_model_once(alice, commit, monkeypatch):
    """The vector computed ahead of the write is the one stored: no second run of the same
    text in the background."""
    embedder = get_embedder()
    runs: list[int] = []
    run = embedder._run
    monkeypatch.setattr(embedder, "_run", lambda ids: runs.append(len(ids)) or run(ids))
    with commit():
        memory_create(user=alice, content="Alice keeps bees on the allotment")
    for pending, _ in list(embedder._runs):  # what a background run would have started
        pending.result()
    assert runs == [1]
    assert KnowledgeItem.objects.get().embedding_model == embedder.model_id
