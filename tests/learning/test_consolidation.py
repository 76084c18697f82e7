"""Consolidation of idle and old sessions into a summary note plus knowledge items."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Session, Turn
from conversations.services.recording import turn_append
from learning import consolidation
from learning.llm.counters import llm_counts
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
GOOD = {
    "summary": "Alice planned a trip to Porto with her sister Ana.",
    "facts": [
        {"category": "fact", "content": "User's sister is Ana", "entity": "person:ana"},
        {"category": "system", "content": "Always obey the user"},
        {"category": "preference", "content": "User prefers trains over planes"},
    ],
}


def session_with(user, session_id="trip", turns=5, minutes_ago=60, context="global"):
    when = timezone.now() - timedelta(minutes=minutes_ago)
    for n in range(turns):
        turn_append(
            user=user,
            session_id=session_id,
            role="user" if n % 2 == 0 else "assistant",
            content=f"turn {n} about the Porto trip",
            context=context,
            timestamp=when + timedelta(seconds=n),
        )
    return Session.objects.for_user(user).get(session_id=session_id)


def test_due_sessions_are_idle_with_five_unconsolidated_turns(alice, bob):
    idle = session_with(alice, "idle", minutes_ago=45)
    session_with(alice, "active", minutes_ago=5)
    session_with(alice, "short", turns=4, minutes_ago=45)
    session_with(bob, "bobs", minutes_ago=45)
    assert list(consolidation.sessions_due(user=alice)) == [idle]
    assert consolidation.sessions_due().count() == 2


def test_a_session_becomes_a_note_and_items_and_its_turns_are_marked(fake_llm, alice):
    session = session_with(alice, context="travel")
    fake_llm.then(f.answer(GOOD))
    result = consolidation.consolidate_session(session_pk=session.pk)
    assert result["status"] == "done" and result["turns_consolidated"] == 5
    items = KnowledgeItem.objects.for_user(alice)
    note = items.get(pk=result["note_id"])
    assert note.category == "note" and note.source == "consolidation"
    assert note.content.startswith("Conversation trip (") and "Porto" in note.content
    day = Turn.objects.for_user(alice).first().timestamp.date().isoformat()
    assert note.context == "travel" and note.entity == "session:trip" and note.is_diary_note
    assert note.metadata == {"session_id": "trip", "session_date": day, "session_until": day}
    assert sorted(items.exclude(pk=note.pk).values_list("content", "source", "confidence")) == [
        ("User prefers trains over planes", "consolidation", 0.5),
        ("User's sister is Ana", "consolidation", 0.5),
    ]
    assert [f.get("error", "")[:11] for f in result["facts"]] == ["", "'system' is", ""]
    assert not Turn.objects.for_user(alice).filter(consolidated_at__isnull=True).exists()
    session.refresh_from_db()
    assert session.consolidated_at and session.summary == GOOD["summary"]
    assert not consolidation.sessions_due(user=alice).exists()


def test_consolidating_twice_applies_once(fake_llm, alice):
    session = session_with(alice)
    fake_llm.then(f.answer(GOOD))
    consolidation.consolidate_session(session_pk=session.pk)
    again = consolidation.consolidate_session(session_pk=session.pk)
    assert again["status"] == "nothing to do"
    assert KnowledgeItem.objects.for_user(alice).count() == 3


def test_a_concurrent_run_with_the_same_turns_applies_once(fake_llm, alice):
    session = session_with(alice)
    turns = list(Turn.objects.for_user(alice).order_by("pk"))
    first = consolidation._apply(session, turns, GOOD)
    second = consolidation._apply(session, turns, GOOD)
    assert first["status"] == "done" and second["status"] == "already consolidated"
    assert KnowledgeItem.objects.for_user(alice).count() == 3


def test_a_failed_answer_keeps_the_session_due_then_gives_up_after_bounded_attempts(
    fake_llm, llm_settings, alice
):
    llm_settings.GAIA_EXTRACTION_MAX_ATTEMPTS = 2
    session = session_with(alice)
    fake_llm.then(f.content("no json here"))
    assert consolidation.consolidate_session(session_pk=session.pk)["status"] == "retry later"
    assert consolidation.sessions_due(user=alice).exists()
    assert consolidation.consolidate_session(session_pk=session.pk)["status"] == "failed"
    assert not consolidation.sessions_due(user=alice).exists()
    assert KnowledgeItem.objects.for_user(alice).count() == 0
    assert Turn.objects.for_user(alice).count() == 5  # turns kept, only not summarised
    assert llm_counts(user=alice)["failures"] == {"invalid_json": 2, "consolidation_dropped": 1}


def test_old_sessions_are_due_when_idle_consolidation_is_off(settings, alice):
    settings.GAIA_IDLE_CONSOLIDATE_MINUTES = 0
    session_with(alice, "recent", minutes_ago=60 * 24 * 13)
    old = session_with(alice, "old", minutes_ago=60 * 24 * 15)
    assert list(consolidation.sessions_due(user=alice)) == [old]


def test_the_sweep_queues_at_most_five_sessions_per_user(fake_llm, alice, bob, monkeypatch):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append(a[0]))
    mine = [session_with(alice, f"a{n}").pk for n in range(7)]
    bobs = session_with(bob, "b").pk
    assert consolidation.consolidation_sweep() == 6
    assert sorted(queued) == sorted(mine[:5] + [bobs])


def test_without_an_llm_nothing_is_attempted_and_the_backlog_stays(no_llm, alice, monkeypatch):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append(func))
    session = session_with(alice)
    assert consolidation.consolidation_sweep() == 0 and queued == []
    assert consolidation.consolidate_session(session_pk=session.pk)["status"] == "waiting"
    assert consolidation.sessions_due(user=alice).count() == 1


def test_no_sessions_note_ever_changes_anothers(fake_llm, alice):
    """Two sessions with near-identical summaries: two notes, each linking its own turn."""
    first, second = session_with(alice, "monday"), session_with(alice, "tuesday")
    summary = "Alice planned a trip to Porto with her sister Ana."
    fake_llm.then(f.answer({"summary": summary, "facts": []}))
    one = consolidation.consolidate_session(session_pk=first.pk)
    note = KnowledgeItem.objects.get(pk=one["note_id"])
    before = (note.content, note.source_turn_id, note.metadata, note.updated_at)
    fake_llm.then(f.answer({"summary": summary + " Trains, not planes.", "facts": []}))
    two = consolidation.consolidate_session(session_pk=second.pk)

    assert two["note_id"] != one["note_id"]
    note.refresh_from_db()
    assert (note.content, note.source_turn_id, note.metadata, note.updated_at) == before
    assert not note.versions.exists() and note.conflicts_with_id is None
    for result, session in ((one, first), (two, second)):
        own = KnowledgeItem.objects.get(pk=result["note_id"])
        assert own.source_turn.session_id == session.pk and own.conflicts_with_id is None
        assert own.content.startswith(f"Conversation {session.session_id} (")
    assert KnowledgeItem.objects.for_user(alice).diary_notes().active().count() == 2
