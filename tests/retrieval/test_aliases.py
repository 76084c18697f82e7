"""Who a question's role word is, in the person's own words (`retrieval.aliases`)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.search import search_turns
from conversations.services.recording import turns_append_many
from retrieval import aliases


@pytest.mark.parametrize(
    "text, name",
    [
        ("The physio, Anouk, says my knee is stable enough to run.", "Anouk"),
        ("Bad news from my physio Anouk: no cycling for two weeks.", "Anouk"),
        ("Anouk, my physio, was pleased.", "Anouk"),
        ("My physio is called Anouk de Vries and she is strict.", "Anouk de Vries"),
        ("Anouk is my physio.", "Anouk"),
        ("Jon: the physio, Anouk, says rest", "Anouk"),
        ("Daniel's physio, Anouk, says rest", "Anouk"),
        ("Saw the physio, Dr. Meyer, at nine.", "Dr. Meyer"),
    ],
)
def test_a_name_set_beside_the_role_word_is_read(text, name):
    assert aliases.names_in([text], "physio") == [name]


@pytest.mark.parametrize(
    "text",
    [
        "The physio, Monday at nine, was cancelled.",  # a day is no one
        "I told the physio. Then I went home.",  # a sentence ends between them
        "My physio is great and I trust her.",  # no name at all
        "The physiotherapist, Anouk, was late.",  # another word
        "Great news from the physio, Caroline!",  # said to Caroline
        "Wow, my physio\nAnouk: yes",  # a new line is a new turn
        "Thanks, the physio Wow, great",  # an exclamation is no name
        "Anouk is my physio partner.",  # "physio" is not the role here
        "Gina: my physio, Jon, thinks so\nJon: I do",  # Jon speaks: it is said to him
    ],
)
def test_no_name_where_none_stands_beside_the_role_word(text):
    assert aliases.names_in([text], "physio") == []


def test_the_role_words_of_a_question():
    assert aliases.role_words("What did the physio say last time?") == ["physio"]
    assert aliases.role_words("Did my manager reply to our proposal?") == ["manager", "proposal"]
    assert aliases.role_words("What did Anouk say?") == []
    assert aliases.role_words("How did she like the Grand Canyon?") == []
    assert aliases.role_words("What did Daniel's physio say?") == ["physio"]


@pytest.mark.django_db(transaction=True)
def test_a_question_by_role_finds_what_was_said_by_name(alice):
    now = timezone.now()
    said = [
        (45, "The physio, Anouk, says my knee is stable enough to run 5 km at a time."),
        (12, "Bad news from the physio: the knee swelled up, so no cycling for two weeks."),
        (2, "Anouk was happy with the knee today, the swelling is gone."),
        (1, "Ordered the climbing harness Sanne wanted for her birthday."),
    ]
    turns = turns_append_many(
        user=alice,
        turns=[
            {"session_id": f"s{days}", "role": "user", "content": text,
             "timestamp": now - timedelta(days=days)}
            for days, text in said
        ],
    )  # fmt: skip
    hits = search_turns(user=alice, query="What did the physio say last time?")
    assert [h.turn.pk for h in hits][:1] == [turns[2].pk]
    assert turns[3].pk not in [h.turn.pk for h in hits]


@pytest.mark.django_db(transaction=True)
def test_a_name_another_person_gives_their_role_stays_theirs(alice, bob):
    now = timezone.now()
    turns_append_many(
        user=bob,
        turns=[{"session_id": "b", "role": "user", "content": "The physio, Anouk, is great.",
                "timestamp": now - timedelta(days=9)}],
    )  # fmt: skip
    mine = turns_append_many(
        user=alice,
        turns=[
            {"session_id": "a", "role": "user", "content": "Anouk was happy with the knee.",
             "timestamp": now - timedelta(days=2)},
            {"session_id": "a", "role": "user", "content": "The physio wants me to rest.",
             "timestamp": now - timedelta(days=20)},
        ],
    )  # fmt: skip
    hits = search_turns(user=alice, query="What did the physio say?")
    assert mine[0].pk not in [h.turn.pk for h in hits]
    assert [h.turn.pk for h in hits][:1] == [mine[1].pk]
