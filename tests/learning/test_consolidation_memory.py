"""Consolidation sees memory: what is stored, superseded and retracted, and which turns
extraction learned already."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Session, Turn
from conversations.services.recording import turn_append
from learning import consolidation
from memory import lineage, services
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def porto_session(user, *, days_ago: int = 3, status: str | None = None) -> Session:
    when = timezone.now() - timedelta(days=days_ago)
    for n in range(5):
        turn_append(
            user=user,
            session_id="trip",
            role="user" if n % 2 == 0 else "assistant",
            content=f"turn {n}: I live in Porto and I have a dog",
            timestamp=when + timedelta(seconds=n),
        )
    if status is not None:
        Turn.objects.for_user(user).filter(role="user").update(extraction_status=status)
    return Session.objects.for_user(user).get(session_id="trip")


def prompt_of(fake_llm) -> str:
    return fake_llm.requests[-1]["messages"][-1]["content"]


def active(user) -> list[str]:
    return sorted(KnowledgeItem.objects.for_user(user).active().values_list("content", flat=True))


def test_the_prompt_carries_current_superseded_and_retracted_memories(fake_llm, alice):
    home = services.memory_create(user=alice, content="User lives in Porto")
    services.memory_update(user=alice, item_id=home.pk, content="User lives in Lisbon now")
    dog = services.memory_create(user=alice, content="User has a dog named Rex")
    services.memory_forget(user=alice, item_id=dog.pk)
    session = porto_session(alice)
    fake_llm.then(f.answer({"summary": "Talked about home.", "facts": []}))

    consolidation.consolidate_session(session_pk=session.pk)

    prompt = prompt_of(fake_llm)
    assert "Memory already holds" in prompt
    assert '"current"' in prompt and "User lives in Lisbon now" in prompt
    assert '"superseded"' in prompt and '"content": "User lives in Porto"' in prompt
    assert '"retracted"' in prompt and "User has a dog named Rex" in prompt


def test_a_fact_superseded_after_the_conversation_is_not_brought_back(fake_llm, alice):
    session = porto_session(alice, days_ago=3)
    home = services.memory_create(user=alice, content="User lives in Porto")
    services.memory_update(user=alice, item_id=home.pk, content="User lives in Lisbon now")
    fake_llm.then(
        f.answer(
            {"summary": "Talked about home.",
             "facts": [{"category": "fact", "content": "User lives in Porto"},
                       {"category": "fact", "content": "User has a beagle"}]}
        )
    )  # fmt: skip

    result = consolidation.consolidate_session(session_pk=session.pk)

    assert result["status"] == "done"
    assert result["facts"][0]["skipped"] == "superseded or retracted since"
    facts = [c for c in active(alice) if not c.startswith("Conversation")]
    assert facts == ["User has a beagle", "User lives in Lisbon now"]


def test_a_fact_retracted_after_the_conversation_is_not_brought_back(fake_llm, alice):
    session = porto_session(alice, days_ago=3)
    dog = services.memory_create(user=alice, content="User has a dog named Rex")
    lineage.memory_retract(user=alice, item_id=dog.pk, reason="Rex died", source="user")
    fake_llm.then(
        f.answer({"summary": "Dogs.", "facts": [{"content": "User has a dog named Rex"}]})
    )
    consolidation.consolidate_session(session_pk=session.pk)
    assert [c for c in active(alice) if not c.startswith("Conversation")] == []


def test_a_conversation_newer_than_the_correction_may_say_it_again(fake_llm, alice):
    home = services.memory_create(user=alice, content="User lives in Porto")
    services.memory_update(user=alice, item_id=home.pk, content="User lives in Lisbon now")
    session = porto_session(alice, days_ago=-1)  # after the correction
    Session.objects.filter(pk=session.pk).update(last_turn_at=timezone.now() - timedelta(days=1))
    fake_llm.then(
        f.answer({"summary": "Moved back.", "facts": [{"content": "User lives in Porto"}]})
    )
    consolidation.consolidate_session(session_pk=session.pk, force=True)
    assert "User lives in Porto" in active(alice)


def test_turns_learned_by_extraction_give_only_the_summary(fake_llm, alice):
    session = porto_session(alice, status="done")
    fake_llm.then(
        f.answer({"summary": "Porto and a dog.", "facts": [{"content": "User has a dog"}]})
    )

    result = consolidation.consolidate_session(session_pk=session.pk)

    assert result["status"] == "done" and result["note_id"]
    assert [c for c in active(alice) if not c.startswith("Conversation")] == []
    assert '"learned"' in prompt_of(fake_llm)
