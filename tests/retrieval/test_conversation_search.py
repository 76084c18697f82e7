"""search_past_conversations: hybrid over turns, filters, time-only listing."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from conversations.search import search_turns
from conversations.services.recording import turns_append_many

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(alice, commit):
    with commit():
        return turns_append_many(
            user=alice,
            turns=[
                {
                    "session_id": "may",
                    "role": "assistant",
                    "content": "What are your plans for the summer?",
                    "timestamp": datetime(2023, 5, 8, 13, 0, tzinfo=UTC),
                },
                {
                    "session_id": "may",
                    "role": "user",
                    "speaker": "Alice",
                    "content": "Researching adoption agencies, it's been a dream of mine.",
                    "timestamp": datetime(2023, 5, 8, 13, 1, tzinfo=UTC),
                },
                {
                    "session_id": "june",
                    "role": "user",
                    "speaker": "Alice",
                    "content": "My sourdough starter finally bubbled!",
                    "timestamp": datetime(2023, 6, 2, 9, 0, tzinfo=UTC),
                },
                {
                    "session_id": "june",
                    "role": "assistant",
                    "content": "Great, bread baking is fun.",
                    "timestamp": datetime(2023, 6, 2, 9, 1, tzinfo=UTC),
                },
            ],
        )


def pks(hits) -> list[int]:
    return [h.turn.pk for h in hits]


def test_a_reply_is_found_by_the_words_of_the_question_it_answers(alice, chat):
    hits = search_turns(user=alice, query="Alice's summer plans", top_k=2)
    assert chat[1].pk in pks(hits)


def test_a_paraphrase_is_found_by_the_vector_stage(alice, chat):
    hits = search_turns(user=alice, query="fermented dough for baking loaves", top_k=1, judge=False)
    assert pks(hits) in ([chat[2].pk], [chat[3].pk])
    assert hits[0].matched_by in ("vector", "both")


def test_filters_session_role_and_time(alice, chat):
    assert set(pks(search_turns(user=alice, query="bread sourdough", session_id="june"))) <= {
        chat[2].pk,
        chat[3].pk,
    }
    assert pks(search_turns(user=alice, query="bread sourdough", role="assistant", top_k=1)) == [
        chat[3].pk
    ]
    june = datetime(2023, 6, 1, tzinfo=UTC)
    assert all(
        h.turn.timestamp >= june for h in search_turns(user=alice, query="summer", time_from=june)
    )
    assert search_turns(user=alice, query="sourdough", session_id="no-such-session") == []


def test_a_time_range_alone_lists_turns_newest_first(alice, chat):
    hits = search_turns(user=alice, time_from=datetime(2023, 6, 1, tzinfo=UTC))
    assert pks(hits) == [chat[3].pk, chat[2].pk]
    assert {h.matched_by for h in hits} == {"time"}


def test_neither_query_nor_time_is_a_validation_error(alice):
    with pytest.raises(ValidationError):
        search_turns(user=alice, query="  ")


def test_bob_never_finds_alices_turns(alice, bob, chat, commit):
    with commit():
        turns_append_many(
            user=bob, turns=[{"session_id": "may", "role": "user", "content": "I like jazz"}]
        )
    found = search_turns(user=bob, query="adoption agencies summer plans sourdough", top_k=10)
    assert all(h.turn.owner_id == bob.pk for h in found)
    assert not set(pks(found)) & {t.pk for t in chat}


TOPICS = (
    "pricing hiring budget security mobile onboarding search billing analytics support "
    "partners travel offices laptops training legal marketing design infrastructure payments "
    "reporting localisation accessibility privacy performance testing releases documentation "
    "community events"
).split()


def test_a_filter_that_rejects_every_nearest_turn_still_finds_the_allowed_paraphrase(alice, commit):
    """60 nearer turns of another session fill the vector stage's over-fetch; the turn the
    filter allows shares no word with the question: the vector stage must search again,
    exactly, among the turns the filter allows."""
    standup = [f"Roadmap meeting notes on {t}" for t in TOPICS]
    standup += [f"The {t} meeting moved the roadmap" for t in TOPICS]
    with commit():
        turns_append_many(
            user=alice,
            turns=[{"session_id": "standup", "role": "user", "content": c} for c in standup],
        )
        planning = turns_append_many(
            user=alice,
            turns=[
                {
                    "session_id": "planning",
                    "role": "user",
                    "content": "Reserve a conference room for the product plan",
                }
            ],
        )[0]
    hits = search_turns(
        user=alice, query="roadmap meeting notes", session_id="planning", top_k=1, min_relevance=0
    )
    assert [h.turn.pk for h in hits] == [planning.pk]
