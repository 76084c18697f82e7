"""Hybrid search over one corpus: vector + keyword candidates, fused, optionally judged.

Retrieval's front door for searches is `hybrid` (and `in_scope`, `keyword_ids`): callers
name a declared corpus, an owner and typed filters (`retrieval.filters`), never SQL.
Everything here works on ids and owner-scoped SQL built from the corpus declaration;
callers turn the final ids into model instances with one `for_user` query.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection
from django.utils.dateparse import parse_datetime

from retrieval import dates, fusion, judge, keyword, linked, relevance, vocabulary
from retrieval.corpus import Corpus
from retrieval.embedding import current_dim, current_model_id, similarity_scale
from retrieval.filters import Filters, scoped
from retrieval.generations import Snapshot, snapshot
from retrieval.indexes import index_for
from retrieval.linked import Also, Linked
from retrieval.query import prefetch, query_vector
from retrieval.vector import VectorIndex

CANDIDATES_PER_RESULT = 4  # each stage proposes top_k x 4 (reference: Recall)
OVERFETCH = 2  # vector hits fetched per wanted candidate, so filters rarely starve it
MIN_CANDIDATES = 20


def _ids_in_scope(corpus: Corpus, where: keyword.Where, ids: list[int] | None) -> list[int]:
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


def in_scope(corpus: Corpus, owner_id: int, filters: Filters = ()) -> list[int]:
    """The ids of the owner's active rows that pass `filters`."""
    return _ids_in_scope(corpus, scoped(corpus, owner_id, filters), None)


def keyword_ids(
    corpus: Corpus,
    owner_id: int,
    text: str,
    filters: Filters = (),
    *,
    limit: int,
    any_term: bool = False,
    active_only: bool = True,
) -> list[int]:
    """The owner's rows sharing words with `text` (best first, at most `limit`) that pass
    `filters`, by the keyword stage alone; `any_term` skips its AND pass (a near-duplicate
    shares some words, not all); `active_only=False` also finds hidden rows (forgotten)."""
    where = scoped(corpus, owner_id, filters)
    if active_only:
        where.add(corpus.active_sql)
    return [
        row_id for row_id, _ in keyword.search(corpus.fts, text, where, limit, any_term=any_term)
    ]


def _among_allowed(
    corpus: Corpus, where: keyword.Where, index: VectorIndex, vector: np.ndarray, limit: int
) -> list[tuple[int, float]]:
    """The `limit` rows nearest to `vector` among those `where` allows (exact)."""
    allowed = np.array(_ids_in_scope(corpus, where, None), dtype=np.int64)
    return index.search(vector, limit, allowed=allowed)


def _heal(corpus: Corpus, owner_id: int, index: VectorIndex, dropped: list[int]) -> None:
    """Drop index entries whose rows are gone or hidden (a write path that did not announce)."""
    base = scoped(corpus, owner_id)
    alive = set(_ids_in_scope(corpus, base, dropped))
    stale = [i for i in dropped if i not in alive]
    if stale:
        index.remove(stale)


@dataclass
class Candidate:
    """One row a stage proposed, with the evidence that it answers the query."""

    id: int
    cosine: float | None = None
    vector_rank: int | None = None
    keyword_rank: int | None = None
    text: str = ""
    moment: Any = None  # when the row happened (the corpus's time column)
    speaker: str = ""
    covered: float = 0.0
    stages: set[str] = field(default_factory=set)
    scale: relevance.Scale = relevance.MINILM_SCALE  # the embedder's similarity scale

    @property
    def relevance(self) -> float:
        return relevance.relevance(self.cosine, self.covered, self.scale)


@dataclass
class Started:
    """A search whose keyword stage has run while its query is being embedded."""

    corpus: Corpus
    owner_id: int
    where: keyword.Where
    limit: int
    text: str  # what is embedded
    embedding: bool  # an embedder is working on `text`
    by_keyword: list[tuple[int, float, tuple]]
    rows: dict[int, tuple]  # id -> (text, time, speaker) of the rows read so far
    weights: dict[str, float]  # the query's words' idf among the owner's rows
    covered: dict[int, float]
    state: Snapshot  # the owner's generations, and which corpora link to turns


def start(
    corpus: Corpus,
    owner_id: int,
    query: str,
    where: keyword.Where,
    limit: int,
    *,
    state: Snapshot | None = None,
) -> Started:
    """The part of `candidates` that needs no query vector: the embedding is started, the
    keyword stage runs its SQL (which also reads the found rows' text) and their coverage
    is computed, and the owner's `state` is read unless given, all while the model embeds."""
    text = vocabulary.vector_text(owner_id, query)
    embedding = prefetch(text)
    active = keyword.Where([*where.clauses, corpus.active_sql], list(where.params), owner_id)
    by_keyword = keyword.search_rows(corpus.fts, query, active, limit, columns=_columns(corpus))
    rows = {row_id: _row(values) for row_id, _, values in by_keyword}
    weights = keyword.term_weights(corpus.fts, relevance.terms_of(query), where)
    covered = {i: _covered(weights, row) for i, row in rows.items()}
    state = state or snapshot(owner_id)
    return Started(
        corpus=corpus,
        owner_id=owner_id,
        where=where,
        limit=limit,
        text=text,
        embedding=embedding,
        by_keyword=by_keyword,
        rows=rows,
        weights=weights,
        covered=covered,
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


def finish(
    started: Started, links: Sequence[Linked] = ()
) -> tuple[dict[int, Candidate], dict[int, fusion.Fused]]:
    """`candidates` of a started search: its vector stage, once the query's vector is there.

    Also the rows that `links` give evidence for, each with that evidence (the best, when
    several give some), read by the same statement as the rows only the vector stage found.
    """
    corpus, owner_id, where, limit = started.corpus, started.owner_id, started.where, started.limit
    by_keyword, rows = started.by_keyword, started.rows
    # The owner's index is brought current while the model may still be embedding.
    index = (
        index_for(
            corpus,
            owner_id,
            current_model_id(),
            current_dim(),
            generation=started.state.generations[corpus.name],
        )
        if started.embedding
        else None
    )
    vector = query_vector(started.text) if index is not None else None
    if vector is None:  # no embedder, or it failed: keyword-only
        index = None
    by_vector = index.search(vector, limit * OVERFETCH) if index is not None else []
    found: dict[int, Candidate] = {}
    for row_id, _, _ in by_keyword:
        found.setdefault(row_id, Candidate(row_id))
    for row_id, cosine in by_vector:
        found.setdefault(row_id, Candidate(row_id)).cosine = cosine
    read, sources = _rows(corpus, where, [i for i in found if i not in rows], links)
    rows.update(read)
    elsewhere: dict[int, fusion.Fused] = {}
    for link, found_by in zip(links, sources, strict=True):
        for i, source in found_by.items():
            other = link.evidence[source]
            if i not in elsewhere or other.score > elsewhere[i].score:
                elsewhere[i] = other
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
    missing = [i for i, c in found.items() if c.cosine is None]
    if missing and index is not None:  # keyword-only rows: their exact similarity
        exact = dict(index.search(vector, len(missing), allowed=np.array(missing, dtype=np.int64)))
        for row_id in missing:
            found[row_id].cosine = exact.get(row_id)
    scale = similarity_scale()
    for row_id, candidate in found.items():
        candidate.scale = scale
        candidate.text, candidate.moment, candidate.speaker = rows[row_id]
        known = started.covered.get(row_id)
        candidate.covered = _covered(started.weights, rows[row_id]) if known is None else known
    return found, elsewhere


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


def score(candidate: Candidate, depth: int) -> float:
    """Rank fusion of the two stages, each scaled by its own evidence for this row.

    A stage's rank counts half as is and half scaled by the stage's evidence for the row
    (the vector stage's by the similarity, the keyword stage's by the share of the query
    the row covers), so a rank without evidence counts half as much as one with it.
    """
    k = settings.GAIA_RRF_K
    vector_rank = candidate.vector_rank or depth + 1
    keyword_rank = candidate.keyword_rank or depth + 1
    by_vector = 0.5 + 0.5 * relevance.of_similarity(candidate.cosine, candidate.scale)
    by_keyword = 0.5 + 0.5 * candidate.covered
    return settings.GAIA_RRF_VECTOR_WEIGHT * by_vector / (
        k + vector_rank
    ) + settings.GAIA_RRF_KEYWORD_WEIGHT * by_keyword / (k + keyword_rank)


def in_named_days(query: str, found: Mapping[int, Candidate]) -> set[int]:
    """Those candidates that happened on a day (or in a month) the query names."""
    windows = dates.mentioned_windows(query)
    if not windows:
        return set()
    return {
        i
        for i, c in found.items()
        if c.moment is not None and any(start <= c.moment < end for start, end in windows)
    }


def said_by_named(owner_id: int, query: str, found: Mapping[int, Candidate]) -> set[int]:
    """Those candidates said by the one speaker the query names (turns)."""
    name = vocabulary.named_speaker(owner_id, query)
    if name is None:
        return set()
    return {i for i, c in found.items() if c.speaker.strip().casefold() == name}


def ranked(
    corpus: Corpus,
    *,
    owner_id: int,
    query: str,
    where: keyword.Where,
    limit: int,
    also: Sequence[Also] = (),
    linked_query: str | None = None,
    state: Snapshot | None = None,
) -> list[fusion.Fused]:
    """Every candidate with its score and relevance, best first.

    With `linked_query`, rows also take evidence found elsewhere (`retrieval.linked`): the
    linked corpus searched for `linked_query`, and each search of `also`. A row's score
    and relevance are the better of its own and that evidence's. Those searches run once
    this search's keyword stage has run, while the query is embedded. `state` is given
    when the caller has read it.
    Rows of a day the query names, and turns of a speaker it names, score more (they stay
    as relevant as they are).
    """
    started = start(corpus, owner_id, query, where, limit, state=state)
    links: list[Linked] = []
    if linked_query is not None:
        links = _elsewhere(corpus, owner_id, linked_query, where, also, started.state)
    found, elsewhere = finish(started, links)
    depth = max(limit, len(found))
    fused: dict[int, fusion.Fused] = {
        i: fusion.Fused(
            i,
            score(c, depth),
            frozenset(c.stages),
            c.relevance,
            relevance.of_similarity(c.cosine, c.scale),
        )
        for i, c in found.items()
    }
    for row_id, other in elsewhere.items():
        mine = fused.get(row_id)
        if mine is None or other.score > mine.score:
            fused[row_id] = fusion.Fused(
                row_id,
                other.score,
                other.stages | (mine.stages if mine else frozenset()),
                max(other.relevance, mine.relevance if mine else 0.0),
                mine.similarity if mine else 0.0,  # the row's own text, never its source's
            )
        elif other.relevance > mine.relevance:
            fused[row_id] = fusion.Fused(
                row_id, mine.score, mine.stages, other.relevance, mine.similarity
            )
    boosts = [(in_named_days(query, found), "date", settings.GAIA_RRF_DATE_WEIGHT)]
    if corpus.speaker_column:
        boosts.append(
            (said_by_named(owner_id, query, found), "speaker", settings.GAIA_RRF_SPEAKER_WEIGHT)
        )
    for ids, stage, weight in boosts:
        for row_id in ids:
            f = fused[row_id]
            fused[row_id] = fusion.Fused(
                row_id, f.score * (1 + weight), f.stages | {stage}, f.relevance, f.similarity
            )
    # On equal scores a direct match comes before a row found only through other evidence.
    return sorted(fused.values(), key=lambda f: (-f.score, "conversation" in f.stages, f.id))


def _elsewhere(
    corpus: Corpus,
    owner_id: int,
    query: str,
    where: keyword.Where,
    also: Sequence[Also],
    state: Snapshot,
) -> list[Linked]:
    """The evidence of the linked corpus's search and of each of `also` (none found: [])."""
    found = [linked.through_link(ranked, corpus, owner_id, query, state)]
    found += [linked.narrower(ranked, corpus, owner_id, a, where, state) for a in also]
    return [f for f in found if f is not None]


def hybrid(
    corpus: Corpus,
    *,
    owner_id: int,
    query: str,
    filters: Filters = (),
    top_k: int,
    documents: Callable[[list[int]], dict[int, str]],
    min_relevance: float = 0.0,
    also: Sequence[Also] = (),
    asked: str | None = None,
    judged: bool = True,
) -> judge.Verdict:
    """The owner's best rows of `corpus` under `filters`, at least `min_relevance`
    relevant, at most `top_k`: retrieval's search, for every caller.

    The linked corpus (`Corpus.source`) is searched for the question as `asked` (default
    `query`), and each of `also` within the same filters; rows take the better of their own
    evidence and theirs (`retrieval.linked`).

    With `judged` (and a judge configured), the judge reads the question as `asked`
    (default `query`) with the first fused candidates, whose text `documents(ids)` gives,
    and its relevance orders and filters them (`retrieval.judge`). Without it, or when it
    fails or runs out of time, the fused order and relevance stand (`Verdict.judged`).
    """
    if not query.strip():
        return judge.Verdict([], judged)
    judging = judged and judge.mode() != "off"
    if judging and not relevance.terms_of(asked or query):
        # Nothing but form words ("the", "what is it"): nothing to judge a row against.
        return judge.Verdict([], True)
    limit = max(MIN_CANDIDATES, top_k * CANDIDATES_PER_RESULT)
    fused = ranked(
        corpus,
        owner_id=owner_id,
        query=query,
        where=scoped(corpus, owner_id, filters),
        limit=limit,
        also=also,
        linked_query=asked or query,
    )
    reason = "skipped" if judged is False else "off"
    if judging:
        verdict = judge.judge(
            asked or query, fused, documents, top_k=top_k, min_relevance=min_relevance
        )
        if verdict.judged:
            return judge.Verdict(verdict.hits[:top_k], True)
        reason = verdict.reason
    kept = [f for f in fused if f.relevance >= min_relevance][:top_k]
    return judge.Verdict(kept, False, reason)
