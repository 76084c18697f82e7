"""A question with the speaker's scene before it asks in its last clause: "I have a
toothache, who is my dentist?" asks who the dentist is (`retrieval.asked`); recall with
such a question: tests/retrieval/test_who_and_when.py."""

import pytest

from retrieval.asked import asked_clause


@pytest.mark.parametrize(
    "question, asked",
    [
        ("I have a toothache, who is my dentist?", "who is my dentist?"),
        ("My tooth hurts. Who\u2019s my dentist again?", "Who\u2019s my dentist again?"),
        (
            "I'm going to Lisbon next week - where does my sister live?",
            "where does my sister live?",
        ),
        ("Remind me, what's my partner's birthday?", "what's my partner's birthday?"),
        ("We're out of milk, so which one do I buy?", "so which one do I buy?"),
        # Asked from the start, or a single clause: nothing to find.
        ("Who is my dentist, and where is the clinic?", None),
        ("I have a toothache who is my dentist", None),
        ("What did Caroline do after she moved?", None),
        # A name, or words that narrow the question, are no scene of the speaker's own.
        ("Caroline, what did she paint?", None),
        ("After the race, what did Melanie do?", None),
        ("In 2023, what did Gina open?", None),
        ("Since we talked, has anything changed?", None),
        ("According to Gina, what makes Jon a good mentor?", None),
        ("Email or a call, what do I prefer?", None),
        # Not a question.
        ("I have a toothache, my dentist is Dr Okoro.", None),
        ("", None),
    ],
)
def test_the_clause_that_asks(question, asked):
    assert asked_clause(question) == asked
