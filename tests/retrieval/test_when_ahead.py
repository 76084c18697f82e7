"""Time to come as people say it: "tomorrow", "next week", "on Tuesday" asked of what is to
come, read as a window over what is due then (`retrieval.when.ahead`, `memory.recall`)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from accounts.services import user_settings_update
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create
from retrieval import when

LISBON = ZoneInfo("Europe/Lisbon")
NOW = datetime(2026, 12, 1, 15, 30, tzinfo=LISBON)  # a Tuesday
ASKED = NOW.astimezone(UTC)  # recall's `now`: the weekday must not be the day the tests run


def day(d: int, month: int = 12, year: int = 2026) -> datetime:
    return datetime(year, month, d, tzinfo=LISBON)


@pytest.mark.parametrize(
    "text, start, end, rest",
    [
        ("What do I have tomorrow?", day(2), day(3), "What do I have?"),
        ("what's on tomorrow morning", day(2), day(2) + timedelta(hours=12), "what's"),
        ("What is due the day after tomorrow?", day(3), day(4), "What is due?"),
        ("What do I have next week?", day(7), day(14), "What do I have?"),
        ("anything due next month", day(1, 1, 2027), day(1, 2, 2027), "anything due"),
        ("What's coming up over the next 3 days?", NOW, day(5), "What's coming up?"),
        ("What do I have in two weeks?", day(12), day(19), "What do I have?"),
        ("What am I doing this weekend?", day(5), day(7), "What am I doing?"),
        ("What do I have on Thursday?", day(3), day(4), "What do I have?"),
        ("What do I have on Tuesday?", day(8), day(9), "What do I have?"),  # not today
        ("What is planned for next Monday?", day(7), day(8), "What is planned?"),
        ("What do I need to do in January?", day(1, 1, 2027), day(1, 2, 2027),
         "What do I need to do?"),
    ],
)  # fmt: skip
def test_time_to_come_is_a_window_after_now(text, start, end, rest):
    read = when.ahead(text, NOW)
    assert read is not None, text
    assert (read.start, read.end, read.rest) == (start, end, rest)


@pytest.mark.parametrize(
    "text",
    [
        "What did I do on Thursday?",  # the time past: `when.read`
        "What do I do every Tuesday?",  # a habit, no day
        "What did I buy in January?",
        "How many hours do I sleep?",
    ],
)
def test_no_time_to_come_where_none_is_said(text):
    assert when.ahead(text, NOW) is None


def _due(user, moments: dict[str, timedelta | None]) -> dict[str, int]:
    """Reminders due `moments` after ASKED (None: a memory with no due date)."""
    ids = {}
    for text, after in moments.items():
        due = (ASKED + after).isoformat() if after is not None else None
        item = memory_create(user=user, content=text, source="user", due_at=due)
        ids[text] = item.pk
    return ids


@pytest.mark.django_db(transaction=True)
def test_what_do_i_have_tomorrow_lists_what_is_due_then(alice):
    user_settings_update(user=alice, timezone="UTC")
    ids = _due(
        alice,
        {
            "Dentist check-up at 09:30 at Smile Clinic": timedelta(days=1),
            "Renew the car insurance": timedelta(days=8),
            "User has a dentist called Dr Silva": None,
        },
    )
    hits = recall(user=alice, query="What do I have tomorrow?", now=ASKED)
    assert [h.item.pk for h in hits] == [ids["Dentist check-up at 09:30 at Smile Clinic"]]
    assert hits.time_read["said"] == "tomorrow" and hits.time_read["used"] is True


@pytest.mark.django_db(transaction=True)
def test_a_topic_is_searched_among_what_is_due_then(alice):
    user_settings_update(user=alice, timezone="UTC")
    ids = _due(
        alice,
        {
            "Dentist check-up at 09:30 at Smile Clinic": timedelta(days=8),
            "Dentist said to floss more": None,
            "Renew the car insurance": timedelta(days=9),
        },
    )
    hits = recall(user=alice, query="When is the dentist in two weeks?", now=ASKED)
    assert hits.time_read["used"] is False  # nothing is due then: the words stay
    hits = recall(user=alice, query="When is my dentist appointment next week?", now=ASKED)
    assert [h.item.pk for h in hits][:1] == [ids["Dentist check-up at 09:30 at Smile Clinic"]]
    assert ids["Dentist said to floss more"] not in [h.item.pk for h in hits]


@pytest.mark.django_db(transaction=True)
def test_a_question_of_what_is_to_come_reads_this_week_ahead_before_behind(alice):
    # "this week" is also a time past (Monday until now); asked of what is to come, what
    # is due in the rest of the week answers first, when something is.
    user_settings_update(user=alice, timezone="UTC")
    ids = _due(alice, {"Parents' evening at Escola do Bonfim": timedelta(days=2)})
    told = memory_create(user=alice, content="User had a haircut", source="user")
    KnowledgeItem.objects.filter(pk=told.pk).update(created_at=ASKED - timedelta(days=1))
    hits = recall(user=alice, query="What do I have this week?", now=ASKED)
    assert [h.item.pk for h in hits] == [ids["Parents' evening at Escola do Bonfim"]]
    hits = recall(user=alice, query="What did I do this week?", now=ASKED)
    assert [h.item.pk for h in hits] == [told.pk]
