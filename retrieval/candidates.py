"""The candidate stage of a search: what the vector and keyword stages propose, with the
evidence each has that a row answers the query (its similarity, the share of the query's
weighted words it covers, its text, time and speaker), read in as few statements as it
takes. `pipeline` fuses and judges them.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from django.db import connection
from django.utils.dateparse import parse_datetime

from core.server import metrics
from retrieval import fusion, keyword, relevance, unsaid, vocabulary
from retrieval.corpus import Corpus
from retrieval.embedding import current_dim, current_model_id, similarity_scale
from retrieval.filters import scoped
from retrieval.generations import Snapshot, snapshot
from retrieval.indexes import index_for
from retrieval.linked import Linked
from retrieval.query import prefetch, query_vector
from retrieval.vector import VectorIndex

OVERFETCH = 2  # vector hits fetched per wanted candidate, so filters rarely starve it


def ids_in_scope(corpus: Corpus, where: keyword.Where, ids: list[int] | None) -> list[int]:
    """Which of `ids` (or all rows when None) pass `where` (which scopes the owner)."""
    sql = f"SELECT t.id FROM {corpus.table} t WHERE {corpus.active_sql}{where.sql()}"
    params = list(where.params)
    if ids is not None:
        if not ids:
            return []
        sql += f" AND t.id IN ({', '.join(['%s'] * len(ids))})"
        params += ids
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def _among_allowed(
    corpus: Corpus, where: keyword.Where, index: VectorIndex, vector: np.ndarray, limit: int
) -> list[tuple[int, float]]:
    """The `limit` rows nearest to `vector` among those `where` allows (exact)."""
    allowed = np.array(ids_in_scope(corpus, where, None), dtype=np.int64)
    return index.search(vector, limit, allowed=allowed)


def _heal(corpus: Corpus, owner_id: int, index: VectorIndex, dropped: list[int]) -> None:
    """Drop index entries whose rows are gone or hidden (a write path that did not announce)."""
    base = scoped(corpus, owner_id)
    alive = set(ids_in_scope(corpus, base, dropped))
    stale = [i for i in dropped if i not in alive]
    if stale:
        index.remove(stale)


@dataclass
class Candidate:
    """One row a stage proposed, with the evidence that it answers the query."""

    id: int
    cosine: float | None = None
    # Its cosine to the question without the words that name the person asked about, when
    # those were embedded (`unsaid.said_by_most`): what the row's relevance is read from.
    bare: float | None = None
    vector_rank: int | None = None
    keyword_rank: int | None = None
    text: str = ""
    moment: Any = None  # when the row happened (the corpus's time column)
    speaker: str = ""
    covered: float = 0.0
    topic: float = 1.0  # how near it is to the query's absent words (fusion.Fused.topic)
    framed: bool = False  # it holds only the query's frame words (fusion.Fused.framed)
    unmet: bool = False  # it does not follow the query's unsaid words (fusion.Fused.unmet)
    stages: set[str] = field(default_factory=set)
    scale: relevance.Scale = relevance.MINILM_SCALE  # the embedder's similarity scale

    @property
    def said(self) -> float | None:
        """The cosine that says how near the row is to what is asked (`bare` if read)."""
        return self.cosine if self.bare is None else self.bare

    @property
    def relevance(self) -> float:
        return relevance.relevance(self.said, self.covered, self.scale)


@dataclass
class Started:
    """A search whose keyword stage has run while its query is being embedded."""

    corpus: Corpus
    owner_id: int
    where: keyword.Where
    limit: int
    text: str  # what is embedded
    embedding: bool  # an embedder is working on `text`
    bare: str  # `text` without the words that name the person asked about (`unsaid.said_by_most`)
    by_keyword: list[tuple[int, float, tuple]]
    rows: dict[int, tuple]  # id -> (text, time, speaker) of the rows read so far
    weights: dict[str, float]  # the query's words' idf among the owner's rows
    covered: dict[int, float]
    absent: str  # the query's words no row of the owner holds that name something ("" if none)
    less: str  # `text` without those of them that name something (`unsaid.topical`; "" if none)
    said: frozenset[str]  # the stems of the query's other words (the holder's names left out)
    frames: frozenset[str]  # those of them that many of the owner's rows hold
    state: Snapshot  # the owner's generations, and which corpora link to turns


def start(
    corpus: Corpus,
    owner_id: int,
    query: str,
    where: keyword.Where,
    limit: int,
    *,
    state: Snapshot | None = None,
    unspoken: frozenset[str] = frozenset(),
) -> Started:
    """The part of `candidates` that needs no query vector: the embedding is started, the
    keyword stage runs its SQL (which also reads the found rows' text) and their coverage
    is computed, and the owner's `state` is read unless given, all while the model embeds."""
    text = vocabulary.vector_text(owner_id, query)
    embedding = prefetch(text)
    who = unsaid.said_by_most(corpus, owner_id, query, unspoken)
    bare = vocabulary.vector_text(owner_id, query, who)
    if bare != text and embedding:
        prefetch(bare)
    active = keyword.Where([*where.clauses, corpus.active_sql], list(where.params), owner_id)
    with metrics.stage("keyword"):  # recall's keyword stage (dedup's searches are not)
        by_keyword = keyword.search_rows(corpus.fts, query, active, limit, columns=_columns(corpus))
    rows = {row_id: _row(values) for row_id, _, values in by_keyword}
    terms = relevance.terms_of(query)
    weights = keyword.term_weights(corpus.fts, terms, where)
    shares = keyword.term_shares(corpus.fts, terms, owner_id)
    # The words a person's memories never say are read over memories, whose holder is
    # known (`unspoken`); a conversation's turns are searched as before.
    absent_stems, said, frames = relevance.absent_and_said(
        weights, shares if unspoken else {}, unspoken
    )
    # Only words that can name something are absent in the sense that matters: "anything"
    # or "should" in no memory says nothing about what a row is about.
    topical = unsaid.topical(
        " ".join(
            w
            for w in dict.fromkeys(re.findall(r"\w+", query))
            if keyword.stem(w.lower()) in absent_stems
        )
    )
    absent = " ".join(topical)
    less = vocabulary.vector_text(owner_id, unsaid.without(query, topical)) if topical else ""
    less = "" if less == text or not less.strip() else less
    if absent and embedding:
        prefetch(absent)
        if less:
            prefetch(less)
    covered = {i: _covered(weights, row) for i, row in rows.items()}
    state = state or snapshot(owner_id)
    return Started(
        corpus=corpus,
        owner_id=owner_id,
        where=where,
        limit=limit,
        text=text,
        embedding=embedding,
        bare=bare,
        by_keyword=by_keyword,
        rows=rows,
        weights=weights,
        covered=covered,
        absent=absent,
        less=less,
        said=said,
        frames=frames,
        state=state,
    )


def candidates(
    corpus: Corpus, owner_id: int, query: str, where: keyword.Where, limit: int
) -> dict[int, Candidate]:
    """What the vector and keyword stages propose (at most `limit` each), with evidence.

    One embedding, made while the keyword search runs its SQL (`start`), one vector search
    (plus an exact one among the keyword-only rows), and one query for the text, time and
    speaker of the rows only the vector stage found, which also keeps only rows `where`
    allows.
    """
    return finish(start(corpus, owner_id, query, where, limit))[0]


@metrics.timed("vector")
def finish(
    started: Started, links: Sequence[Linked] = ()
) -> tuple[dict[int, Candidate], dict[int, fusion.Fused]]:
    """`candidates` of a started search: its vector stage, once the query's vector is there.

    Also the rows that `links` give evidence for, each with that evidence (the best, when
    several give some), read by the same statement as the rows only the vector stage found.
    """
    corpus, owner_id, where, limit = started.corpus, started.owner_id, started.where, started.limit
    by_keyword, rows = started.by_keyword, started.rows
    index, vector = _index_and_vector(started)
    by_vector = index.search(vector, limit * OVERFETCH) if index is not None else []
    found: dict[int, Candidate] = {}
    for row_id, _, _ in by_keyword:
        found.setdefault(row_id, Candidate(row_id))
    for row_id, cosine in by_vector:
        found.setdefault(row_id, Candidate(row_id)).cosine = cosine
    read, sources = _rows(corpus, where, [i for i in found if i not in rows], links)
    rows.update(read)
    elsewhere = _best_evidence(links, sources)
    kept = sum(1 for i, _ in by_vector if i in rows)
    if index is not None and kept < limit and kept < len(by_vector):
        # The filters, or entries of rows gone meanwhile, ate the over-fetch: the gone ones
        # leave the index, and the search is repeated exactly among the rows `where` allows.
        _heal(corpus, owner_id, index, [i for i, _ in by_vector if i not in rows])
        if len(by_vector) < index.size:
            by_vector = _among_allowed(corpus, where, index, vector, limit)
            for row_id, cosine in by_vector:
                found.setdefault(row_id, Candidate(row_id)).cosine = cosine
            rows.update(_rows(corpus, where, [i for i, _ in by_vector if i not in rows])[0])
    found = {i: c for i, c in found.items() if i in rows}
    vector_ids = [i for i, _ in by_vector if i in found][:limit]
    for rank, row_id in enumerate(vector_ids, start=1):
        found[row_id].vector_rank = rank
        found[row_id].stages.add("vector")
    for rank, (row_id, _, _) in enumerate(by_keyword, start=1):
        found[row_id].keyword_rank = rank
        found[row_id].stages.add("keyword")
    found = {i: c for i, c in found.items() if c.stages}
    if index is not None:
        _exact_similarity(found, index, vector)
    scale = similarity_scale()
    for row_id, candidate in found.items():
        candidate.scale = scale
        candidate.text, candidate.moment, candidate.speaker = rows[row_id]
        known = started.covered.get(row_id)
        candidate.covered = _covered(started.weights, rows[row_id]) if known is None else known
        text, _, speaker = rows[row_id]
        shown = f"{speaker} {text}"
        candidate.framed = relevance.holds_any(started.frames, shown) and not (
            relevance.holds_any(started.said - started.frames, shown)
        )
    if index is not None and started.absent:
        unsaid.absent_similarity(found, index, started.absent, scale)
        if started.less:
            unsaid.mark_unmet(found, index, vector, started.less)
    if index is not None and started.bare != started.text:
        unsaid.bare_similarity(found, index, started.bare)
    return found, elsewhere


def _index_and_vector(started: Started) -> tuple[VectorIndex | None, np.ndarray | None]:
    """The owner's index, brought current while the model may still be embedding, and the
    query's vector; (None, None) with no embedder, or when it failed: keyword-only."""
    if not started.embedding:
        return None, None
    index = index_for(
        started.corpus,
        started.owner_id,
        current_model_id(),
        current_dim(),
        generation=started.state.generations[started.corpus.name],
    )
    vector = query_vector(started.text)
    return (index, vector) if vector is not None else (None, None)


def _best_evidence(
    links: Sequence[Linked], sources: list[dict[int, int]]
) -> dict[int, fusion.Fused]:
    """{row id: the best evidence any link gives it} (`sources`: each link's row -> its id)."""
    best: dict[int, fusion.Fused] = {}
    for link, found_by in zip(links, sources, strict=True):
        for i, source in found_by.items():
            other = link.evidence[source]
            if i not in best or other.score > best[i].score:
                best[i] = other
    return best


def _exact_similarity(found: dict[int, Candidate], index: VectorIndex, vector: np.ndarray) -> None:
    """Keyword-only rows get their exact similarity to the query."""
    missing = [i for i, c in found.items() if c.cosine is None]
    if missing:
        exact = dict(index.search(vector, len(missing), allowed=np.array(missing, dtype=np.int64)))
        for row_id in missing:
            found[row_id].cosine = exact.get(row_id)


def _columns(corpus: Corpus) -> tuple[str, str, str]:
    """A row's text, time and speaker, as SQL on the corpus table `t`."""
    return (f"t.{corpus.text}", corpus.time_column, corpus.speaker_column or "''")


def _covered(weights: dict[str, float], row: tuple) -> float:
    """The share of the query's weighted words a row (text, time, speaker) holds."""
    text, _, speaker = row
    return relevance.coverage(weights, f"{speaker} {text}")


def _row(values: tuple) -> tuple[str, datetime | None, str]:
    return (values[0] or "", _aware(values[1]), values[2] or "")


def _rows(
    corpus: Corpus, where: keyword.Where, ids: list[int], links: Sequence[Linked] = ()
) -> tuple[dict[int, tuple], list[dict[int, int]]]:
    """({id: (text, time, speaker)} of those of `ids` that `where` allows, and for each
    link {id: linked id} of the allowed rows it has evidence for), in one statement."""
    arms, params = [], []
    # One arm per list, each on its own index (an OR of them would scan the owner's rows).
    lists = [("t.id", "NULL", ids, -1)]
    lists += [(link.column, link.column, list(link.evidence), n) for n, link in enumerate(links)]
    for column, source, values, n in lists:
        if values:
            arms.append(
                f"SELECT t.id, {', '.join(_columns(corpus))}, {source}, {n} "
                f"FROM {corpus.table} t WHERE {corpus.active_sql}{where.sql()} "
                f"AND {column} IN ({', '.join(['%s'] * len(values))})"
            )
            params += [*where.params, *values]
    sources: list[dict[int, int]] = [{} for _ in links]
    if not arms:
        return {}, sources
    asked = set(ids)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(arms), params)
        found = cursor.fetchall()
    rows = {row[0]: _row(row[1:4]) for row in found if row[0] in asked}
    for row in found:
        if row[5] >= 0 and row[4] in links[row[5]].evidence:
            sources[row[5]][row[0]] = row[4]
    return rows, sources


def _aware(value: Any) -> datetime | None:
    """A time column read with raw SQL (SQLite gives naive UTC, or text) as aware UTC."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value
