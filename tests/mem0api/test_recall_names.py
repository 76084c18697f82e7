"""mem0's search reads who and when: an app's person is the holder of what it stored by
their name, and a time said as people say it is read (`time_read`)."""

import pytest

from tests.mem0api.conftest import add

SEARCH = "/mem0/v3/memories/search/"
KIM = [
    "Kim works as a nurse at St. Olav's hospital",
    "Kim has a cat called Lena",
    "Kim lives in Trondheim",
    "Kim's brother Ola is a carpenter",
]


@pytest.mark.django_db
def test_a_first_person_question_finds_what_an_app_stored_by_name(tutor):
    add(tutor, "kim", *KIM)
    query = {"query": "what is my job", "filters": {"user_id": "kim"}, "queries": ["occupation"]}
    answer = tutor.post(SEARCH, query, format="json").json()
    assert answer["results"][0]["memory"] == KIM[0]
    assert "time_read" not in answer  # mem0's shape, unless a time was read
    later = {"query": "what did I say about my cat yesterday", "filters": {"user_id": "kim"}}
    read = tutor.post(SEARCH, later, format="json").json()
    assert read["time_read"]["said"] == "yesterday" and read["time_read"]["used"] is False


@pytest.mark.django_db
def test_a_question_about_her_finds_what_an_app_stored_by_her_name(tutor):
    add(tutor, "kim", *KIM)
    query = {"query": "where does she work", "filters": {"user_id": "kim"}}
    results = tutor.post(SEARCH, query, format="json").json()["results"]
    assert results and results[0]["memory"] == KIM[0]
    # Her name is no topic: a horse she never mentioned finds at most one weak hit.
    horse = {"query": "What is Kim's horse called?", "filters": {"user_id": "kim"}}
    results = tutor.post(SEARCH, horse, format="json").json()["results"]
    assert len(results) <= 1 and all(r["score"] < 0.9 for r in results), results
