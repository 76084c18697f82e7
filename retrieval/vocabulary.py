"""What one owner's rows say about the owner's queries: common words and speakers.

Common words. A name that occurs in most of a user's memories ("Caroline ...", "User ...")
dominates what a small embedding model makes of a question: "What did Caroline paint?"
lands nearest the user's most generic rows about Caroline. Keyword search already discounts
such words by their inverse document frequency; `vector_text` does the same for the vector
stage. A word found in at least COMMON_SHARE of a sample of the owner's newest items or
turns is dropped from the text that is embedded, the most common first and never more
than half of the query's words: in a narrow corpus most words are common, and the rest
must still say something. Stop words stay (they carry the question's shape). The keyword
stage sees every word.

Speakers. The name a question gives ("What does Melanie do to destress?") is, in a
conversation, usually the one who said the answer. `named_speaker` finds the one speaker
of the owner's recent turns a query names, for the turn search's speaker stage.

The sample is read once per owner per SAMPLE_SECONDS in each process (a vocabulary changes
slowly), or sooner once this process has written more than a tenth of the rows it read
(`retrieval/written.py`): a new user's first conversation would otherwise have no
speakers and no common words for two minutes. Owners with fewer than MIN_ROWS rows of a
kind get no common words from them. What a sample found is saved beside the owner's
index snapshots, stamped with the generations of their items and turns; a process that
has not served the owner reads it while those are current (retrieval/snapshots.py).
"""

import re
import time
from collections import Counter
from dataclasses import dataclass

from django.db import connection

from core.lru import Lru
from retrieval import snapshots, written
from retrieval.corpus import declared
from retrieval.generations import generations_read
from retrieval.keyword import STOPWORDS

COMMON_SHARE = 0.1
SAMPLE_ROWS = 400  # newest rows of each corpus
MIN_ROWS = 20
SAMPLE_SECONDS = 120.0
MAX_OWNERS = 4096
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Profile:
    common: dict[str, float]  # lower-case word -> share of rows holding it
    speakers: frozenset[str]  # case-folded names of the recent turns' speakers
    expires: float
    rows: int = 0  # rows read
    marks: written.Marks = ()  # this process's writes when the sample was read


_cache: Lru[int, Profile] = Lru(MAX_OWNERS)


def _read(owner_id: int) -> list[list[tuple[str, str]]]:
    """Per declared corpus, its newest active rows' (text, speaker)."""
    found = []
    with connection.cursor() as cursor:
        for corpus in declared():
            speaker = corpus.speaker_column or "''"
            cursor.execute(
                f"SELECT t.{corpus.text}, {speaker} FROM {corpus.table} t "
                f"WHERE t.{corpus.owner} = %s AND {corpus.active_sql} "
                f"ORDER BY t.{corpus.newest} DESC LIMIT %s",
                [owner_id, SAMPLE_ROWS],
            )
            found.append([(row[0] or "", row[1] or "") for row in cursor.fetchall()])
    return found


def _common_in(rows: list[str]) -> dict[str, float]:
    if len(rows) < MIN_ROWS:
        return {}
    counts: Counter[str] = Counter()
    for text in rows:
        counts.update(set(_WORD.findall(text.lower())))
    shares = {word: count / len(rows) for word, count in counts.items()}
    return {w: s for w, s in shares.items() if s >= COMMON_SHARE and w not in STOPWORDS}


def _fresh_enough(owner_id: int, cached: Profile | None, now: float) -> bool:
    if cached is None or cached.expires <= now:
        return False
    return not written.outgrown(cached.marks, owner_id, cached.rows)


def _saved_or_read(owner_id: int) -> tuple[dict[str, float], frozenset[str], int]:
    """(common words, speakers, rows read): saved beside the owner's index snapshots at
    their current generations (retrieval/snapshots.py), else read and saved."""
    stamp: dict[str, int] = {}
    if snapshots.enabled():
        stamp = generations_read(owner_id)
        saved = snapshots.sample_load(owner_id, "vocabulary", stamp)
        if saved is not None:
            return saved["common"], frozenset(saved["speakers"]), saved["rows"]
    corpora = _read(owner_id)
    common: dict[str, float] = {}
    for rows_of in corpora:
        for word, share in _common_in([text for text, _ in rows_of]).items():
            common[word] = max(share, common.get(word, 0.0))
    said = [speaker for rows_of in corpora for _, speaker in rows_of]
    speakers = frozenset(s.strip().casefold() for s in said if s.strip())
    rows = sum(len(rows_of) for rows_of in corpora)
    if stamp:
        data = {"common": common, "speakers": sorted(speakers), "rows": rows}
        snapshots.sample_save_later(owner_id, "vocabulary", stamp, data)
    return common, speakers, rows


def profile(owner_id: int) -> Profile:
    now = time.monotonic()
    cached = _cache.get(owner_id)
    if _fresh_enough(owner_id, cached, now):
        return cached
    marks = written.marks([corpus.table for corpus in declared()], owner_id)
    common, speakers, rows = _saved_or_read(owner_id)
    fresh = Profile(common, speakers, now + SAMPLE_SECONDS, rows, marks)
    _cache.put(owner_id, fresh)
    return fresh


def common_words(owner_id: int) -> dict[str, float]:
    """{word: share} of the words in at least COMMON_SHARE of the owner's items or turns
    (the larger share of the two); never stop words."""
    return profile(owner_id).common


def vector_text(owner_id: int, query: str, who: frozenset[str] = frozenset()) -> str:
    """`query` without its most common words for this owner (at most half of its words),
    `who` first: words that name the person asked about and that many of the owner's
    rows hold, however few rows there are ("Lena" in seven memories about Lena)."""
    words = [w for w in dict.fromkeys(_WORD.findall(query.lower())) if w not in STOPWORDS]
    common = common_words(owner_id) if words else {}
    found = [w for w in words if w in who]
    found += sorted((w for w in words if w in common and w not in who), key=lambda w: -common[w])
    dropped = set(found[: len(words) // 2])
    if not dropped:
        return query
    parts = re.split(r"(\w+)", query)
    return " ".join("".join(part for part in parts if part.lower() not in dropped).split())


def named_speaker(owner_id: int, query: str) -> str | None:
    """The one speaker of the owner's recent turns that `query` names (case-folded), or
    None when it names none or several ("What do Jon and Gina have in common?")."""
    text = query.casefold()
    named = [
        name
        for name in profile(owner_id).speakers
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
    ]
    return named[0] if len(named) == 1 else None


def clear_cache() -> None:
    _cache.clear()
