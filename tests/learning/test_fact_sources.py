"""Facts from consolidation point at the turn they came from, not the batch's last turn."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Session, Turn
from conversations.services.recording import turn_append
from learning import consolidation
from learning.fact_sources import fact_turn
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
SAID = [
    ("user", "Hi! I just got back from Porto, my sister Ana lives there."),
    ("assistant", "Welcome back! How was the trip?"),
    ("user", "Great. By the way I'm allergic to penicillin, the doctor confirmed it."),
    ("assistant", "Noted, that is important to know."),
    ("user", "I live in Porto now. Actually no, I moved to Lisbon in May."),
    ("assistant", "Lisbon, got it."),
    ("user", "Thanks, see you tomorrow."),
]
FACTS = {
    "summary": "The user talked about a trip, an allergy and a move to Lisbon.",
    "facts": [
        {"category": "fact", "content": "User's sister Ana lives in Porto"},
        {"category": "fact", "content": "User is allergic to penicillin"},
        {"category": "fact", "content": "User moved to Lisbon in May"},
        {"category": "preference", "content": "User enjoys jazz"},
    ],
}


def _session(user) -> list[Turn]:
    when = timezone.now() - timedelta(hours=2)
    for n, (role, content) in enumerate(SAID):
        turn_append(
            user=user,
            session_id="catch-up",
            role=role,
            content=content,
            timestamp=when + timedelta(minutes=n),
        )
    return list(Turn.objects.for_user(user).order_by("timestamp", "pk"))


def test_each_consolidated_fact_points_at_the_turn_that_said_it(fake_llm, alice):
    turns = _session(alice)
    session = Session.objects.for_user(alice).get(session_id="catch-up")
    fake_llm.then(f.answer(FACTS))
    result = consolidation.consolidate_session(session_pk=session.pk)
    assert result["status"] == "done"
    source = {
        item.content: item.source_turn_id
        for item in KnowledgeItem.objects.for_user(alice).filter(source="consolidation")
        if item.category != "note"
    }
    assert source == {
        "User's sister Ana lives in Porto": turns[0].pk,
        "User is allergic to penicillin": turns[2].pk,
        "User moved to Lisbon in May": turns[4].pk,
        "User enjoys jazz": turns[-1].pk,  # said nowhere: the batch's last turn
    }


def test_the_persons_turn_wins_a_tie_and_a_later_turn_an_equal_one(alice):
    turns = _session(alice)
    assert fact_turn("User lives in Lisbon", turns) == turns[4]  # not the assistant's echo
    assert fact_turn("Porto", turns) == turns[4]  # said twice: the later mention
    assert fact_turn("", turns) == turns[-1]
