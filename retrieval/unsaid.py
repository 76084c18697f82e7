"""What a question names that the person never said, and the words that only say who.

Recall over a person's memories reads three things here, each from the owner's own word
counts (`retrieval.termstats`) and the embedder:

- `said_by_most`: the words of a question that name the person asked about (the holder's
  names, "User") and that many of their rows hold. Embedded, such a word makes every row
  about the person look like the answer ("What's Lena's horse called?" and "Lena's sister
  is called Anna" among seven memories about Lena, cosine 0.64), so a row's relevance is
  read from its similarity to the question without them (`Candidate.bare`).
- `topical`: of the question's words none of the owner's rows hold ("horse", "Pokémon",
  "marathon"), those that can name something: not the most common words of English ("am",
  "should", "any" are absent from memories written in the third person, "take" from a
  question's frame, without being a topic).
- `mark_unmet`: whether a candidate follows those words. The question is embedded with and
  without them; a row that answers it loses similarity when they go (the dog's booster,
  when "dog" goes from "When does the dog need his booster?"), a row that matched only the
  question's other words does not ("Parent-teacher meeting for Beatriz" for "Which piano
  teacher did I hire for Beatriz?"). `Candidate.unmet`: the row kept less than
  FOLLOW_SHARE of the question's own shift.
"""

import re
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import wordfreq

from retrieval import keyword, relevance, vocabulary
from retrieval.corpus import Corpus
from retrieval.query import query_vector
from retrieval.vector import VectorIndex

# A row follows the question's unsaid words when removing them moves the row's cosine by
# at least this share of what it moves the question's own vector (1 - cosine of the two).
FOLLOW_SHARE = 0.3
_WORD = re.compile(r"\w+", re.UNICODE)
# The most common words of English never name a topic, even when no memory holds them:
# "am", "should", "any" (absent from memories written in the third person), "take", "keep",
# "need" ("How do I take my coffee?"). The 500 most frequent words of English by wordfreq
# (zipf above about 5.3): "dog", "visit", "language" still name something.
COMMON_ENGLISH = 500


@lru_cache(maxsize=1)
def common_english() -> frozenset[str]:
    """The COMMON_ENGLISH most frequent words of English (wordfreq), read once."""
    return frozenset(wordfreq.top_n_list("en", COMMON_ENGLISH))


def said_by_most(
    corpus: Corpus, owner_id: int, query: str, unspoken: frozenset[str]
) -> frozenset[str]:
    """The words of `query` that name the person asked about (`unspoken`: the holder's
    names, "User") and that at least vocabulary.COMMON_SHARE of the owner's rows hold,
    counted however few the rows."""
    asked = unspoken.intersection(_WORD.findall(query.lower())) if unspoken else set()
    if not asked:
        return frozenset()
    mine = keyword.owner_terms(corpus.fts, owner_id)
    if mine is None or not mine.rows:
        return frozenset()
    return frozenset(
        w
        for w in asked
        if mine.stem_frequency(keyword.stem(w)) >= vocabulary.COMMON_SHARE * mine.rows
    )


def topical(absent: str) -> list[str]:
    """The words of `absent` (the question's words none of the owner's rows hold) that
    can name something."""
    common = common_english()
    return [w for w in absent.split() if w.lower() not in common]


def without(query: str, words: list[str]) -> str:
    """`query` without `words` (whole words, any case)."""
    if not words:
        return query
    pattern = r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)"
    return " ".join(re.sub(pattern, " ", query, flags=re.IGNORECASE).split())


def similarities(index: VectorIndex, text: str, ids: list[int]) -> dict[int, float] | None:
    """{id: cosine} of the rows `ids` to `text` embedded as a query (None: no vector)."""
    vector = query_vector(text)
    if vector is None or not ids:
        return None
    return dict(index.search(vector, len(ids), allowed=np.array(ids, dtype=np.int64)))


def mark_unmet(
    found: Mapping[int, object], index: VectorIndex, asked: np.ndarray, less: str
) -> None:
    """Set `unmet` on each candidate of `found` (with its `cosine` to the question's
    vector `asked`) that does not follow the words the question loses in `less`."""
    vector = query_vector(less)
    if vector is None or not found:
        return
    shift = max(0.0, 1.0 - float(np.dot(asked, vector)))
    if shift <= 0.0:
        return
    ids = list(found)
    near = dict(index.search(vector, len(ids), allowed=np.array(ids, dtype=np.int64)))
    for row_id, candidate in found.items():
        moved = (candidate.cosine or 0.0) - near.get(row_id, candidate.cosine or 0.0)
        candidate.unmet = moved < FOLLOW_SHARE * shift


def absent_similarity(
    found: Mapping[int, object], index: VectorIndex, absent: str, scale: relevance.Scale
) -> None:
    """Each candidate's similarity to the query's absent words alone (`Candidate.topic`):
    whether it means what the question names that the owner's rows never say."""
    near = similarities(index, absent, list(found))
    if near is None:
        return
    for row_id, candidate in found.items():
        if row_id in near:
            candidate.topic = relevance.of_similarity(near[row_id], scale)


def bare_similarity(found: Mapping[int, object], index: VectorIndex, bare: str) -> None:
    """Each candidate's cosine to the question without the holder's names (`Candidate.bare`)."""
    near = similarities(index, bare, list(found))
    if near is None:
        return
    for row_id, candidate in found.items():
        candidate.bare = near.get(row_id)
