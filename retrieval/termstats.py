"""How many of one owner's rows hold a word (SQLite), without reading other owners' rows.

On SQLite every user's rows share one FTS5 index, whose counts (`fts5vocab`) are global:
used to weigh or choose a user's query words, they would let another user's rows change
this user's ranking and dedup, and reveal that someone holds many rows with a word.
PostgreSQL counts within the searched scope (keyword.py); here the counts come from the
owner's own rows: the newest SAMPLE_ROWS of them are read, tokenized like the index
(`porter unicode61`), and each stem's share of the sample, times the owner's row count,
is its document count (exact while the owner has at most SAMPLE_ROWS rows). A sample is
reused for SAMPLE_SECONDS in each process, like the global counts before it (word counts
change slowly; two statements per owner and half minute, never one per query). A sample
is also saved beside the owner's index snapshots, stamped with the generation it was read
at, so another process (or this one, half a minute later) reads it while the owner's rows
have not changed instead of tokenizing them again (retrieval/snapshots.py).
"""

import re
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from django.db import connection

from core.lru import Lru
from retrieval import snapshots
from retrieval.corpus import declared
from retrieval.fulltext_schema import FullTextSpec
from retrieval.generations import generations_read

SAMPLE_ROWS = 400
SAMPLE_SECONDS = 30.0
MAX_ENTRIES = 4096
_WORD = re.compile(r"\w+", re.UNICODE)
_local = threading.local()  # a snowball stemmer keeps its word in itself: one per thread


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The token FTS5's `porter unicode61` tokenizer stores for `word` (near enough)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    if len(plain) <= 2:
        return plain
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("porter")
    return stemmer.stemWord(plain)


@dataclass(frozen=True)
class OwnerTerms:
    rows: int  # the owner's rows in the table (all of them: the index holds them all)
    sampled: int  # how many of the newest were read
    counts: Counter  # stem -> sampled rows holding it
    expires: float

    def frequency(self, term: str) -> int:
        """Estimated rows of the owner holding `term` (exact for a small owner)."""
        if not self.sampled:
            return 0
        return self.stem_frequency(stem(term.lower()))

    def stem_frequency(self, stemmed: str) -> int:
        """Estimated rows of the owner holding the stem `stemmed` (already stemmed)."""
        if not self.sampled:
            return 0
        held = self.counts.get(stemmed, 0)
        return held if self.sampled >= self.rows else round(held * self.rows / self.sampled)


_cache: Lru[tuple[str, int], OwnerTerms] = Lru(MAX_ENTRIES)


def _rows(spec: FullTextSpec, owner_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {spec.table} WHERE owner_id = %s", [owner_id])
        return int(cursor.fetchone()[0])


def _sample(spec: FullTextSpec, owner_id: int, rows: int) -> OwnerTerms:
    columns = ", ".join(spec.columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {spec.table} WHERE owner_id = %s ORDER BY id DESC LIMIT %s",
            [owner_id, SAMPLE_ROWS],
        )
        texts = [" ".join(str(v or "") for v in row) for row in cursor.fetchall()]
    counts: Counter = Counter()
    for text in texts:
        counts.update({stem(w) for w in _WORD.findall(text.lower())})
    expires = time.monotonic() + SAMPLE_SECONDS
    return OwnerTerms(max(rows, len(texts)), len(texts), counts, expires)


def _saved_or_sampled(spec: FullTextSpec, owner_id: int) -> OwnerTerms:
    corpus = next((c.name for c in declared() if c.fts.table == spec.table), None)
    if corpus is None or not snapshots.enabled():
        return _sample(spec, owner_id, _rows(spec, owner_id))
    stamp, name = {corpus: generations_read(owner_id)[corpus]}, f"terms-{spec.table}"
    saved = snapshots.sample_load(owner_id, name, stamp)
    if saved is not None:
        expires = time.monotonic() + SAMPLE_SECONDS
        return OwnerTerms(saved["rows"], saved["sampled"], Counter(saved["counts"]), expires)
    fresh = _sample(spec, owner_id, _rows(spec, owner_id))
    counts = dict(fresh.counts)
    snapshots.sample_save_later(
        owner_id, name, stamp, {"rows": fresh.rows, "sampled": fresh.sampled, "counts": counts}
    )
    return fresh


def owner_terms(spec: FullTextSpec, owner_id: int) -> OwnerTerms:
    """The owner's word counts in `spec`'s table (cached, see the module's text)."""
    key = (spec.table, owner_id)
    cached = _cache.get(key)
    if cached and cached.expires > time.monotonic():
        return cached
    fresh = _saved_or_sampled(spec, owner_id)
    _cache.put(key, fresh)
    return fresh


def clear_cache() -> None:
    _cache.clear()
