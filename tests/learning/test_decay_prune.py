"""Decay and prune: exact confidence, importance and deletions, applied once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from learning.decay import decay_user
from memory.models import KnowledgeItem
from memory.services import memory_create
from privacy.retention import prune_user

pytestmark = pytest.mark.django_db


def aged(user, content, *, days, used_days=None, confidence=0.5, context="global"):
    item = memory_create(user=user, content=content, confidence=confidence, context=context)
    then = timezone.now() - timedelta(days=days)
    used = timezone.now() - timedelta(days=used_days) if used_days is not None else None
    KnowledgeItem.objects.filter(pk=item.pk).update(
        created_at=then, updated_at=then, last_used=used
    )
    return item


def reload(item):
    return KnowledgeItem.objects.get(pk=item.pk)


def test_confidence_decays_once_per_idle_period(alice):
    idle = aged(alice, "User once visited Oslo", days=40)
    used = aged(alice, "User drinks green tea", days=40, used_days=2)
    fresh = aged(alice, "User started a new job", days=3)
    assert decay_user(user=alice)["confidence_decayed"] == 1
    assert decay_user(user=alice)["confidence_decayed"] == 0  # same period: applied once
    assert [round(reload(i).confidence, 3) for i in (idle, used, fresh)] == [0.45, 0.5, 0.5]
    assert reload(idle).updated_at < timezone.now() - timedelta(days=39)  # not an edit


def test_stored_importance_is_never_rewritten_and_slows_fading(alice):
    note = aged(alice, "User once visited Oslo", days=100)
    KnowledgeItem.objects.filter(pk=note.pk).update(importance=0.2)
    core = aged(alice, "User's name is Alice", days=100)
    KnowledgeItem.objects.filter(pk=core.pk).update(importance=1.0)
    recent = aged(alice, "User drinks green tea", days=400, used_days=0)
    # 100 idle days leave 0.1 of an item: under 0.05 for the minor one, not the core one.
    assert decay_user(user=alice)["faded"] == 1
    assert reload(note).forgotten_at is not None
    assert (reload(core).forgotten_at, reload(core).importance) == (None, 1.0)
    assert reload(recent).forgotten_at is None
    assert decay_user(user=alice)["faded"] == 0


def test_faded_items_are_forgotten_and_exempt_contexts_never_decay(settings, alice):
    settings.GAIA_DECAY_EXEMPT_CONTEXTS = ["identity"]
    faded = aged(alice, "User once visited Oslo", days=140)
    exempt = aged(alice, "User is called Alice", days=400, context="identity")
    result = decay_user(user=alice)
    assert result["faded"] == 1
    assert reload(faded).forgotten_at is not None  # soft: restorable
    kept = reload(exempt)
    assert (kept.forgotten_at, kept.confidence, kept.importance) == (None, 0.5, exempt.importance)


def test_a_dry_run_changes_nothing(alice):
    item = aged(alice, "User once visited Oslo", days=140)
    assert decay_user(user=alice, dry_run=True) == {"confidence_decayed": 1, "faded": 1}
    kept = reload(item)
    assert (kept.confidence, kept.importance, kept.forgotten_at) == (0.5, item.importance, None)


def test_prune_removes_old_history_and_long_unused_weak_knowledge(alice):
    old = timezone.now() - timedelta(days=91)
    turn_append(user=alice, session_id="s", role="user", content="old words", timestamp=old)
    recent = turn_append(user=alice, session_id="s", role="user", content="new words")
    tool_call_record(user=alice, tool_name="search", timestamp=old)
    tool_call_record(user=alice, tool_name="search")
    weak = aged(alice, "User maybe likes jazz", days=100, confidence=0.05)
    weak_but_used = aged(alice, "User maybe likes rock", days=100, used_days=10, confidence=0.05)
    strong = aged(alice, "User likes opera", days=100, confidence=0.6)
    assert prune_user(user=alice, dry_run=True) == {"turns": 1, "tool_calls": 1, "knowledge": 1}
    assert Turn.objects.for_user(alice).count() == 2
    assert prune_user(user=alice) == {"turns": 1, "tool_calls": 1, "knowledge": 1}
    assert list(Turn.objects.for_user(alice)) == [recent]
    assert ToolCall.objects.for_user(alice).count() == 1
    remaining = set(KnowledgeItem.objects.for_user(alice).values_list("pk", flat=True))
    assert remaining == {weak_but_used.pk, strong.pk} and weak.pk not in remaining
    assert prune_user(user=alice) == {"turns": 0, "tool_calls": 0, "knowledge": 0}


def test_a_kept_turn_loses_its_copy_of_the_pruned_turn_it_answered(alice):
    """Each turn keeps the end of the turn it answers as context (indexed with it): the
    pruned turn's words must not stay in the kept reply."""
    old = timezone.now() - timedelta(days=91)
    turn_append(
        user=alice, session_id="s", role="user", content="My locker code is tangerine9",
        timestamp=old,
    )  # fmt: skip
    reply = turn_append(user=alice, session_id="s", role="assistant", content="Noted, thanks")
    assert "tangerine9" in reply.context_text

    prune_user(user=alice)

    reply.refresh_from_db()
    assert reply.content == "Noted, thanks" and reply.context_text == ""
    assert not Turn.objects.filter(context_text__contains="tangerine9").exists()


def test_decay_and_prune_for_alice_never_touch_bob(alice, bob):
    bobs = aged(bob, "Bob once visited Oslo", days=400, confidence=0.05)
    old = timezone.now() - timedelta(days=91)
    turn_append(user=bob, session_id="s", role="user", content="old words", timestamp=old)
    decay_user(user=alice), prune_user(user=alice)
    kept = reload(bobs)
    assert (kept.confidence, kept.importance, kept.forgotten_at) == (0.05, bobs.importance, None)
    assert Turn.objects.for_user(bob).count() == 1
