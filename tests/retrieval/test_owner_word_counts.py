"""Word statistics are the owner's own (SQLite shares one full-text index between users):
another user's rows change neither this user's dedup nor the relevance of their hits."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory import services
from memory.corpus import KNOWLEDGE_FTS
from memory.models import KnowledgeItem
from memory.recall import recall
from retrieval import keyword, termstats

pytestmark = pytest.mark.django_db
BUDGET = 20  # dedup's word budget, small here so that a small flood exceeds it
FLOOD = 3 * BUDGET + 10  # more rows holding each word than that budget allows


@pytest.fixture(autouse=True)
def _small_budget(monkeypatch):
    monkeypatch.setattr(keyword, "ANY_TERM_BUDGET", BUDGET)


def flood(user) -> None:
    services.memory_create_many(
        user=user,
        items=[  # four words of their own each: no two of them are near-duplicates
            {"content": f"User likes green tea q{n}a q{n}b q{n}c q{n}d"} for n in range(FLOOD)
        ],
    )
    keyword.clear_caches()  # counts seen while writing are cached for a while
    assert KnowledgeItem.objects.for_user(user).count() == FLOOD


def test_another_users_rows_do_not_change_my_dedup(alice, bob):
    first = services.memory_create(user=alice, content="User likes green tea")
    flood(bob)
    again = services.memory_create(user=alice, content="user likes green tea!")
    assert again.deduplicated and again.pk == first.pk
    assert KnowledgeItem.objects.for_user(alice).count() == 1


def test_another_users_rows_do_not_change_my_word_weights(alice, bob):
    services.memory_create(user=alice, content="User likes green tea")
    services.memory_create(user=alice, content="User drinks black coffee")
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    keyword.clear_caches()
    before = keyword.term_weights(KNOWLEDGE_FTS, ["green", "coffee"], where)
    flood(bob)
    after = keyword.term_weights(KNOWLEDGE_FTS, ["green", "coffee"], where)
    assert after == before  # bob's "green" rows count for nothing here
    hits = recall(user=alice, query="green tea", min_relevance=0)
    assert hits[0].item.content == "User likes green tea"


def test_words_are_stemmed_right_by_many_threads_at_once():
    """A web process serves requests on threads; a stemmer shared between them broke
    words mid-stem (IndexError, a 500 on a batch write under load)."""
    words = [f"{root}{end}" for root in ("generat", "connect", "relat", "hop", "organiz")
             for end in ("ing", "ion", "ional", "ed", "ization", "ness", "fulness")]  # fmt: skip
    expected = {word: termstats.stem.__wrapped__(word) for word in words}
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(300):
                for word in words:
                    assert termstats.stem.__wrapped__(word) == expected[word]
        except BaseException as error:  # noqa: BLE001 (the main thread reports it)
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="FTS5's counts are SQLite's")
def test_everyones_counts_of_a_texts_words_are_read_in_one_query(alice, bob):
    services.memory_create(user=alice, content="Alice grows tomatoes and basil")
    services.memory_create(user=bob, content="Bob grows basil")
    keyword.clear_caches()
    words = ["grows", "basil", "tomatoes", "zeppelin"]
    with CaptureQueriesContext(connection) as queries:
        counts = keyword._document_frequencies(KNOWLEDGE_FTS, words)
    assert counts == {"grows": 2, "basil": 2, "tomatoes": 1, "zeppelin": 0}
    assert len(queries.captured_queries) == 1
    with CaptureQueriesContext(connection) as queries:  # counted a moment ago: no query
        assert keyword._document_frequencies(KNOWLEDGE_FTS, words[:2]) == {"grows": 2, "basil": 2}
    assert queries.captured_queries == []
