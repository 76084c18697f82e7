"""A query naming a date: the windows read from it, and the search stage they add."""

from datetime import UTC, datetime, timedelta

import pytest

from conversations.search import search_turns
from conversations.services.recording import turns_append_many
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create
from retrieval.dates import mentioned_windows


def day(year: int, month: int, number: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, number, tzinfo=UTC)
    return start, start + timedelta(days=1)


@pytest.mark.parametrize(
    "text",
    [
        "What painting did Mel show on October 13, 2023?",
        "what did she find on 13 October, 2023",
        "on the 13th of October 2023",
        "Oct. 13th 2023?",
        "notes from 2023-10-13 please",
    ],
)
def test_a_named_day_is_read_in_the_usual_orders(text):
    assert mentioned_windows(text) == [day(2023, 10, 13)]


def test_a_month_with_its_year_is_the_whole_month():
    start = datetime(2023, 12, 1, tzinfo=UTC)
    assert mentioned_windows("What did Mel paint in December 2023?") == [
        (start, datetime(2024, 1, 1, tzinfo=UTC))
    ]


def test_several_dates_are_read_in_order_once_each():
    text = "between 2 May 2023 and 9 May 2023, and again on 2 May 2023"
    assert mentioned_windows(text) == [day(2023, 5, 2), day(2023, 5, 9)]


@pytest.mark.parametrize(
    "text",
    [
        "May I ask what Mel painted?",
        "What happened in 2023?",
        "When did Mel go camping in June?",
        "last week at 10:30",
        "February 30, 2023",
        "2023-13-01",
        "",
    ],
)
def test_no_window_without_a_real_full_date(text):
    assert mentioned_windows(text) == []


def test_march_before_a_year_is_read_as_the_month():
    # A known ambiguity, accepted: a month name right before a year is a month.
    assert mentioned_windows("We march 2023 steps")[0][0] == datetime(2023, 3, 1, tzinfo=UTC)


@pytest.fixture
def diary(alice, commit):
    """The same kind of turn on three days; only the date tells them apart."""
    with commit():
        return turns_append_many(
            user=alice,
            turns=[
                {
                    "session_id": f"s{number}",
                    "role": "user",
                    "content": f"I found a great spot for the shop today ({what})",
                    "timestamp": datetime(2023, 2, number, 15, 0, tzinfo=UTC),
                }
                for number, what in ((1, "by the river"), (8, "near the station"), (15, "uptown"))
            ],
        )


@pytest.mark.django_db
def test_turn_search_puts_the_named_days_turns_first(alice, diary):
    for turn in diary:
        when = turn.timestamp
        query = f"What did I find for the shop on {when.day} February, {when.year}?"
        assert search_turns(user=alice, query=query, top_k=3)[0].turn.pk == turn.pk


@pytest.mark.django_db
def test_the_date_stage_keeps_the_callers_filters(alice, diary):
    hits = search_turns(
        user=alice,
        query="What did I find for the shop on 8 February, 2023?",
        top_k=3,
        session_id="s1",
    )
    assert [h.turn.pk for h in hits] == [diary[0].pk]


@pytest.mark.django_db
def test_recall_puts_items_remembered_on_the_named_day_first(alice, commit):
    with commit():
        items = [
            memory_create(user=alice, content=text)
            for text in (
                "Alice signed the lease for her bakery",
                "Alice hired two bakers for the bakery",
                "Alice bought a big oven for her bakery",
            )
        ]
    for number, item in zip((1, 8, 15), items, strict=True):
        KnowledgeItem.objects.filter(pk=item.pk).update(
            created_at=datetime(2023, 2, number, 12, 0, tzinfo=UTC)
        )
    for number, item in zip((1, 8, 15), items, strict=True):
        query = f"What did Alice do for the bakery on February {number}, 2023?"
        assert recall(user=alice, query=query, top_k=3)[0].item.pk == item.pk


@pytest.mark.django_db
def test_another_users_rows_of_that_day_never_come_back(alice, bob, diary, commit):
    with commit():
        turns_append_many(
            user=bob,
            turns=[{"session_id": "b", "role": "user", "content": "Bob's own note"}],
        )
    hits = search_turns(user=bob, query="What did I find on 8 February, 2023?", top_k=10)
    assert {h.turn.owner_id for h in hits} <= {bob.pk}
