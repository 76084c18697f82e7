"""Reconciliation of near-duplicate pairs found through stored embeddings."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from learning import reconciliation
from learning.models import ReconciledPair
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_session_note
from tests.learning import fake_llm as f
from tests.support import vector

pytestmark = pytest.mark.django_db


def embedded(user, content, vec, *, days_old=0, confidence=0.6, model="m1", context="global"):
    item = memory_create(user=user, content=content, confidence=confidence, context=context)
    KnowledgeItem.objects.filter(pk=item.pk).update(
        embedding=vector(*vec),
        embedding_model=model,
        created_at=timezone.now() - timedelta(days=days_old),
    )
    return KnowledgeItem.objects.get(pk=item.pk)


def state(*items, by):
    rows = KnowledgeItem.objects.filter(pk__in=[i.pk for i in items]).order_by("pk")
    return [(round(r.confidence, 2), r.superseded_by_id == by.pk) for r in rows]


def test_only_similar_pairs_of_one_model_and_context_are_candidates(alice):
    a = embedded(alice, "User works at Acme", (1, 0, 0), days_old=10)
    b = embedded(alice, "User is employed by Acme", (0.95, 0.1, 0))
    embedded(alice, "User likes tea", (0, 1, 0))
    embedded(alice, "Acme is where the user works", (1, 0, 0), model="m0")  # minority model
    embedded(alice, "Acme pays well", (1, 0, 0.01), context="work")  # another context
    pairs = reconciliation.similar_pairs(user=alice)
    assert [(p.older.pk, p.newer.pk) for p in pairs] == [(a.pk, b.pk)]
    assert pairs[0].similarity >= 0.85


@pytest.mark.parametrize(
    "outcome, expected",
    [
        # (confidence, superseded by the newer item) of older, newer
        ("reinforce", [(0.65, False), (0.65, False)]),
        ("contradict", [(0.6, True), (0.7, False)]),
        ("weaken", [(0.5, False), (0.6, False)]),
        ("neutral", [(0.6, False), (0.6, False)]),
    ],
)
def test_each_outcome_changes_exactly_what_it_should(fake_llm, alice, outcome, expected):
    older = embedded(alice, "User lives in Berlin", (1, 0, 0), days_old=30)
    newer = embedded(alice, "User lives in Lisbon", (0.9, 0.1, 0))
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": outcome}]}))
    result = reconciliation.reconcile_user(user=alice)
    assert result["status"] == "done" and result[outcome] == 1
    assert state(older, newer, by=newer) == expected
    assert ReconciledPair.objects.for_user(alice).get().outcome == outcome


def test_a_judged_pair_is_not_asked_again(fake_llm, alice):
    embedded(alice, "User lives in Berlin", (1, 0, 0), days_old=30)
    embedded(alice, "User lives in Lisbon", (0.9, 0.1, 0))
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": "reinforce"}]}))
    reconciliation.reconcile_user(user=alice)
    assert reconciliation.reconcile_user(user=alice)["pairs"] == 0
    assert len(fake_llm.requests) == 1


def test_a_failed_answer_changes_nothing(fake_llm, alice):
    older = embedded(alice, "User lives in Berlin", (1, 0, 0), days_old=30)
    newer = embedded(alice, "User lives in Lisbon", (0.9, 0.1, 0))
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": "merge"}]}))
    assert reconciliation.reconcile_user(user=alice)["status"] == "failed"
    assert state(older, newer, by=newer) == [(0.6, False), (0.6, False)]
    assert not ReconciledPair.objects.exists()


def test_broken_vectors_are_ignored(alice):
    embedded(alice, "User lives in Berlin", (1, 0, 0))
    embedded(alice, "User lives in Lisbon", (float("nan"), 0, 0))
    embedded(alice, "User lives in Porto", (1, 0))  # wrong dimension
    assert reconciliation.similar_pairs(user=alice) == []


def test_pairs_are_bounded_per_run(alice):
    for n in range(30):
        embedded(alice, f"User note number {n}", (1, 0.001 * n, 0))
    assert len(reconciliation.candidate_pairs(user=alice)) == 20


def test_a_possible_conflict_from_a_write_is_judged_first_even_unembedded(fake_llm, alice):
    monday = memory_create(user=alice, content="Team meeting is on Monday")
    friday = memory_create(user=alice, content="Team meeting is on Friday")
    assert friday.conflicts_with_id == monday.pk and friday.embedding is None
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": "CONTRADICT"}]}))

    result = reconciliation.reconcile_user(user=alice)

    assert result["status"] == "done" and result["contradict"] == 1
    assert "Team meeting is on Monday" in fake_llm.requests[0]["messages"][1]["content"]
    monday.refresh_from_db()
    friday.refresh_from_db()
    assert monday.superseded_by_id == friday.pk and friday.conflicts_with_id is None
    assert list(KnowledgeItem.objects.for_user(alice).active()) == [friday]
    assert reconciliation.reconcile_user(user=alice)["pairs"] == 0  # judged once


def test_a_pair_judged_compatible_keeps_both_and_drops_the_link(fake_llm, alice):
    alps = memory_create(user=alice, content="User loves hiking in the Alps")
    dolomites = memory_create(user=alice, content="User loves hiking in the Dolomites")
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": "neutral"}]}))
    assert reconciliation.reconcile_user(user=alice)["neutral"] == 1
    assert KnowledgeItem.objects.for_user(alice).active().count() == 2
    dolomites.refresh_from_db()
    assert dolomites.conflicts_with_id is None and alps.pk


def test_without_a_model_a_possible_conflict_waits_visibly(no_llm, alice, bob):
    memory_create(user=bob, content="Team meeting is on Monday")
    monday = memory_create(user=alice, content="Team meeting is on Monday")
    friday = memory_create(user=alice, content="Team meeting is on Friday")
    result = reconciliation.reconcile_user(user=alice)
    assert (result["pairs"], result["status"]) == (1, "waiting")
    assert reconciliation.reconciliation_sweep() == 0
    friday.refresh_from_db()
    assert friday.conflicts_with_id == monday.pk and friday.is_active and monday.is_active


def test_the_sweep_reaches_a_user_whose_only_pairs_are_linked(fake_llm, alice, queued):
    memory_create(user=alice, content="User is allergic to penicillin")
    memory_create(user=alice, content="User is not allergic to penicillin")
    assert reconciliation.reconciliation_sweep() == 1
    assert queued == [("learning.tasks.reconcile_user", (alice.pk,))]


def test_two_sessions_diary_notes_are_never_judged_as_a_pair(alice):
    for session_id in ("monday", "tuesday"):
        note = memory_session_note(
            user=alice,
            session_id=session_id,
            content=f"Conversation {session_id}: Alice planned a trip to Porto",
            context="global",
            source_turn=None,
            first=date(2026, 3, 2),
            last=date(2026, 3, 2),
        )
        KnowledgeItem.objects.filter(pk=note.pk).update(
            embedding=vector(1, 0, 0), embedding_model="m1"
        )
    assert reconciliation.candidate_pairs(user=alice) == []
