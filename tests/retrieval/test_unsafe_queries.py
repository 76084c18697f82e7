"""Any user text is a query: results or an empty list, never an error."""

import pytest

from conversations.search import search_turns
from conversations.services.recording import turn_append
from memory.corpus import ITEMS
from memory.recall import recall
from memory.services import memory_create

pytestmark = pytest.mark.django_db

UNSAFE = [
    '"',
    '"unbalanced',
    "AND (",
    "OR OR OR",
    "NOT",
    "*",
    "pre*",
    "NEAR(alpha beta, 2)",
    "content: alpha",
    "^alpha",
    "alpha - beta + gamma",
    "'; DROP TABLE memory_knowledgeitem; --",
    "🧠🔥 emoji only 🎉",
    "\x00 null byte",
    "(((",
    "a" * 10_000,
    "alpha " * 2_000,
    "日本語のテキスト",
]


@pytest.fixture
def stored(alice, commit):
    with commit():
        memory_create(user=alice, content="alpha beta gamma notes")
        turn_append(user=alice, session_id="s", role="user", content="alpha beta gamma chat")


@pytest.mark.parametrize("text", UNSAFE, ids=lambda t: repr(t[:20]))
def test_recall_survives_any_query_text(alice, stored, text):
    assert isinstance(recall(user=alice, query=text), list)


@pytest.mark.parametrize("text", UNSAFE, ids=lambda t: repr(t[:20]))
def test_conversation_search_survives_any_query_text(alice, stored, text):
    assert isinstance(search_turns(user=alice, query=text), list)


def test_operators_are_searched_as_plain_words(alice, stored):
    hits = recall(user=alice, query='alpha AND ("gamma" OR NEAR*)')
    assert [h.item.content for h in hits] == ["alpha beta gamma notes"]


def test_keyword_work_is_bounded_by_dropping_the_most_common_terms(alice, commit, monkeypatch):
    from retrieval import keyword

    monkeypatch.setattr(keyword, "OR_BUDGET", 1)
    monkeypatch.setattr(keyword, "_df_cache", {})
    with commit():
        for topic in ("tax forms", "garden hose", "train tickets", "piano tuning"):
            memory_create(user=alice, content=f"common words about {topic}")
        rare = memory_create(user=alice, content="common words and one zeppelin")
    keyword.clear_caches()  # counts seen while writing are stale (cached for a while)
    hits = recall(user=alice, query="common zeppelin")
    assert hits[0].item.pk == rare.pk
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    # Every term is in more rows than the budget allows: left to the vector stage.
    assert keyword.search(ITEMS.fts, "common words", where, 10) == []
