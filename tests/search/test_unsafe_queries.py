"""Any user text is a query: results or an empty list, never an error."""

import pytest

from conversations.search import search_turns
from conversations.services import turn_append
from memory.search import recall
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
