"""How much a row's text has to do with a query, as a number in [0, 1].

Two kinds of evidence, each comparable across queries:
- similarity: the cosine between the query's and the row's embeddings. A sentence model
  puts unrelated texts near 0.0-0.3 and paraphrases from 0.5 up; `of_similarity` maps that
  scale linearly from SIMILARITY_NONE (nothing) to SIMILARITY_FULL (certain).
- coverage: the share of the query's meaningful words the row contains, each word weighted
  by its inverse document frequency among the owner's rows (a rare word that matches says
  more than a common one). Words are compared by their Porter stems, like the full-text index.

`relevance` joins them: matched words add to the similarity (at most COVERAGE_BONUS),
so a row that is both near in meaning and uses the question's rare words ranks as most
relevant, and one that only shares a frequent word stays low; a row that holds all of the
query's words is relevant on its own. Pure functions: callers
pass the document frequencies they read.
"""

import math
import re
from collections.abc import Mapping
from functools import lru_cache

from retrieval.keyword import STOPWORDS, stem

# all-MiniLM-L6-v2's scale; each embedder names its own (`retrieval.embedding.similarity_scale`):
# bge-small-en-v1.5 puts unrelated texts near 0.4-0.55, its cosines live in a higher band.
SIMILARITY_NONE = 0.25
SIMILARITY_FULL = 0.75
Scale = tuple[float, float]  # (cosine of nothing in common, cosine of a certain match)
MINILM_SCALE: Scale = (SIMILARITY_NONE, SIMILARITY_FULL)
COVERAGE_BONUS = 0.25
_WORD = re.compile(r"\w+", re.UNICODE)
# What follows an apostrophe in a possessive or a contraction ("Daniel's", "don't",
# "I'm"): no word of its own. Read as one, the possessive's "s" is in most of a person's
# memories, so it framed every row that names someone's something ("Who is my boss?" and
# "Daniel's manager is Pieter": they shared only "s", and the row was set aside as matching
# the question's frame alone).
_CLITIC = re.compile(r"(?<=\w)['’](?:s|t|d|m|ll|re|ve)\b", re.IGNORECASE)


def terms_of(text: str) -> list[str]:
    """The stems of `text`'s meaningful words, in order, each once."""
    words = [w for w in _WORD.findall(_CLITIC.sub("", text.lower())) if w not in STOPWORDS]
    return list(dict.fromkeys(stem(w) for w in words))


def idf(document_frequency: int, total: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1 + (total - document_frequency + 0.5) / (document_frequency + 0.5))


@lru_cache(maxsize=32768)
def _stems_in(text: str) -> frozenset[str]:
    """The stems of `text` (a row's text: the same rows come back query after query)."""
    return frozenset(terms_of(text))


def coverage(weights: Mapping[str, float], text: str) -> float:
    """Share of the query's weighted stems found in `text` (0 when the query has none)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    present = _stems_in(text)
    return sum(w for term, w in weights.items() if term in present) / total


# A word held by at least this share of the owner's rows frames their memories rather than
# naming a topic: "favourite", "called", "prefers", "team" in a 200-memory account (4 rows
# and more). Only read when the question also names something the owner never said.
FRAME_SHARE = 0.02


def absent_and_said(
    weights: Mapping[str, float], shares: Mapping[str, float], unspoken: frozenset[str]
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(the query's stems that none of the owner's rows hold, the stems some do, those of
    them that many do: FRAME_SHARE of the rows or more), the holder's names (`unspoken`:
    they say who, not what) in none. `shares` is each stem's share of the owner's rows;
    without it (too few rows to tell) nothing is absent. "What's my horse's name?" asked
    of someone who never mentioned a horse: "horse" is absent, "name" said."""
    if not shares:
        return frozenset(), frozenset(), frozenset()
    who = {stem(w) for w in unspoken}
    absent = {t for t in weights if t not in who and shares.get(t, 0.0) <= 0.0 and t.isalpha()}
    said = {t for t in weights if t not in who and t not in absent}
    frames = {t for t in said if shares.get(t, 0.0) >= FRAME_SHARE}
    return frozenset(absent), frozenset(said), frozenset(frames)


def holds_any(terms: frozenset[str], text: str) -> bool:
    """Whether `text` holds any of the stems `terms`."""
    return bool(terms) and not terms.isdisjoint(_stems_in(text))


def of_similarity(cosine: float | None, scale: Scale = MINILM_SCALE) -> float:
    """The similarity alone on the [0, 1] scale."""
    if cosine is None:
        return 0.0
    none, full = scale
    return _clip((cosine - none) / (full - none))


def relevance(cosine: float | None, covered: float, scale: Scale = MINILM_SCALE) -> float:
    """Similarity and matched words together, in [0, 1].

    The words alone count as their coverage squared: a row holding every word of the query
    (a name, an error code) is relevant whatever the embedding says, one holding a third
    of them barely.
    """
    by_words = _clip(covered) ** 2
    if cosine is None:  # no embedder: the words are all there is
        return by_words
    return max(by_words, of_similarity(cosine + COVERAGE_BONUS * covered, scale))


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))
