"""Words too common in one owner's rows to tell them apart, left out of the query's embedding.

A name that occurs in most of a user's memories ("Caroline ...", "User ...") dominates what a
small embedding model makes of a question: "What did Caroline paint?" lands nearest the
user's most generic rows about Caroline. Keyword search already discounts such words by
their inverse document frequency; this does the same for the vector stage. A word found in
at least COMMON_SHARE of a sample of the owner's newest items and turns is dropped from the
text that is embedded, the most common first and never more than half of the query's
words: in a narrow corpus most words are common, and the rest must still say something.
Stop words stay (they carry the question's shape). The keyword stage sees every word.

The sample is read once per owner per SAMPLE_SECONDS in each process (a vocabulary changes
slowly), and owners with fewer than MIN_ROWS rows keep their queries whole.
"""

import re
import threading
import time
from collections import Counter, OrderedDict

from django.db import connection

from memory.search.corpus import ITEMS, TURNS
from memory.search.keyword import STOPWORDS

COMMON_SHARE = 0.1
SAMPLE_ROWS = 400  # newest rows of each corpus
MIN_ROWS = 20
SAMPLE_SECONDS = 120.0
MAX_OWNERS = 4096
_WORD = re.compile(r"\w+", re.UNICODE)
_cache: OrderedDict[int, tuple[dict[str, float], float]] = OrderedDict()
_lock = threading.Lock()


def _samples(owner_id: int) -> list[list[str]]:
    """The newest rows of each corpus that has enough of them to count words in."""
    queries = (
        f"SELECT t.content FROM {ITEMS.table} t WHERE t.owner_id = %s AND {ITEMS.active_sql} "
        "ORDER BY t.id DESC LIMIT %s",
        f"SELECT t.content FROM {TURNS.table} t WHERE t.owner_id = %s "
        "ORDER BY t.timestamp DESC LIMIT %s",
    )
    samples: list[list[str]] = []
    with connection.cursor() as cursor:
        for sql in queries:
            cursor.execute(sql, [owner_id, SAMPLE_ROWS])
            rows = [row[0] or "" for row in cursor.fetchall()]
            if len(rows) >= MIN_ROWS:
                samples.append(rows)
    return samples


def _common_in(rows: list[str]) -> dict[str, float]:
    counts: Counter[str] = Counter()
    for text in rows:
        counts.update(set(_WORD.findall(text.lower())))
    shares = {word: count / len(rows) for word, count in counts.items()}
    return {word: share for word, share in shares.items() if share >= COMMON_SHARE}


def common_words(owner_id: int) -> dict[str, float]:
    """{lower-case word: share of rows holding it} for the words in at least COMMON_SHARE
    of the owner's items or of their turns (the larger share of the two); no stop words.
    """
    now = time.monotonic()
    with _lock:
        cached = _cache.get(owner_id)
        if cached and cached[1] > now:
            _cache.move_to_end(owner_id)
            return cached[0]
    common: dict[str, float] = {}
    for rows in _samples(owner_id):
        for word, share in _common_in(rows).items():
            if word not in STOPWORDS:
                common[word] = max(share, common.get(word, 0.0))
    with _lock:
        _cache[owner_id] = (common, now + SAMPLE_SECONDS)
        _cache.move_to_end(owner_id)
        while len(_cache) > MAX_OWNERS:
            _cache.popitem(last=False)
    return common


def vector_text(owner_id: int, query: str) -> str:
    """`query` without its most common words for this owner (at most half of its words)."""
    words = [w for w in dict.fromkeys(_WORD.findall(query.lower())) if w not in STOPWORDS]
    common = common_words(owner_id) if words else {}
    found = sorted((w for w in words if w in common), key=lambda w: -common[w])
    dropped = set(found[: len(words) // 2])
    if not dropped:
        return query
    parts = re.split(r"(\w+)", query)
    return " ".join("".join(part for part in parts if part.lower() not in dropped).split())


def clear_cache() -> None:
    with _lock:
        _cache.clear()
