"""Hybrid search over one corpus: vector + keyword candidates, fused, optionally judged.

Retrieval's front door for searches is `hybrid` (and `in_scope`, `keyword_ids`): callers
name a declared corpus, an owner and typed filters (`retrieval.filters`), never SQL.
Everything here works on ids and owner-scoped SQL built from the corpus declaration;
callers turn the final ids into model instances with one `for_user` query.
"""

import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, TypeVar

from django.conf import settings

from retrieval import dates, decide, fusion, judge, keyword, late, linked, relevance, vocabulary
from retrieval.candidates import Candidate, finish, ids_in_scope, start
from retrieval.corpus import Corpus
from retrieval.filters import Filters, scoped
from retrieval.generations import Snapshot
from retrieval.linked import Also, Linked

log = logging.getLogger(__name__)
CANDIDATES_PER_RESULT = 4  # each stage proposes top_k x 4 (reference: Recall)
MIN_CANDIDATES = 20
MAX_PHRASINGS = 4  # the caller's own phrasings of a question (`hybrid`'s `phrasings`)
# With phrasings the judge reads this share more candidates than GAIA_JUDGE_CANDIDATES:
# the head of their fused ranking holds the first few of each (`fuse_phrasings`).
PHRASED_POOL = 1.25


def in_scope(corpus: Corpus, owner_id: int, filters: Filters = ()) -> list[int]:
    """The ids of the owner's active rows that pass `filters`."""
    return ids_in_scope(corpus, scoped(corpus, owner_id, filters), None)


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


def word_rows(corpus: Corpus, owner_id: int, words: Sequence[str]) -> tuple[dict[str, int], int]:
    """({word: how many of the owner's rows hold it}, how many rows the counts were read
    from): the owner's own word counts, as every word weight uses them (`termstats`)."""
    terms = keyword.owner_terms(corpus.fts, owner_id)
    return {w: terms.frequency(w) for w in words}, terms.sampled


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


# Hits at least this share of the best one's relevance answer "about as well as it" when
# a question asks for the newest ("lately"): among them time orders, the rest follow.
RECENT_BAND = 0.5
T = TypeVar("T")


def newest_first(
    hits: list[T], relevance: Callable[[T], float], moment: Callable[[T], Any]
) -> list[T]:
    """`hits` (best first) with those about as relevant as the best (RECENT_BAND of its
    relevance) newest first, the rest after them in their order: "What has the physio said
    lately?" is answered by the newest of what the physio said, not by the best worded."""
    if not hits:
        return hits
    best = max(relevance(h) for h in hits)
    band = [h for h in hits if relevance(h) >= best * RECENT_BAND]
    rest = [h for h in hits if relevance(h) < best * RECENT_BAND]
    return sorted(band, key=moment, reverse=True) + rest


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
    unspoken: frozenset[str] = frozenset(),
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
    started = start(corpus, owner_id, query, where, limit, state=state, unspoken=unspoken)
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
            relevance.of_similarity(c.said, c.scale),
            c.topic,
            c.framed,
            c.unmet,
        )
        for i, c in found.items()
    }
    _take_better(fused, elsewhere)
    boosts = [(in_named_days(query, found), "date", settings.GAIA_RRF_DATE_WEIGHT)]
    if corpus.speaker_column:
        boosts.append(
            (said_by_named(owner_id, query, found), "speaker", settings.GAIA_RRF_SPEAKER_WEIGHT)
        )
    for ids, stage, weight in boosts:
        for row_id in ids:
            f = fused[row_id]
            fused[row_id] = replace(f, score=f.score * (1 + weight), stages=f.stages | {stage})
    # On equal scores a direct match comes before a row found only through other evidence.
    return sorted(fused.values(), key=lambda f: (-f.score, "conversation" in f.stages, f.id))


def _take_better(fused: dict[int, fusion.Fused], elsewhere: Mapping[int, fusion.Fused]) -> None:
    """Each row keeps the better score and the better relevance of its own evidence and
    the evidence found elsewhere (they never add up); its similarity stays its own text's,
    never its source's."""
    for row_id, other in elsewhere.items():
        mine = fused.get(row_id)
        if mine is None or other.score > mine.score:
            fused[row_id] = fusion.Fused(
                row_id,
                other.score,
                other.stages | (mine.stages if mine else frozenset()),
                max(other.relevance, mine.relevance if mine else 0.0),
                mine.similarity if mine else 0.0,
                max(other.topic, mine.topic if mine else 0.0),
                mine.framed if mine else other.framed,
                mine.unmet if mine else other.unmet,
            )
        elif other.relevance > mine.relevance or other.topic > mine.topic:
            fused[row_id] = replace(
                mine,
                relevance=max(other.relevance, mine.relevance),
                topic=max(other.topic, mine.topic),
            )


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


def fuse_phrasings(lists: Sequence[list[fusion.Fused]]) -> list[fusion.Fused]:
    """One ranking from the rankings of several phrasings of one question, each row with
    the best relevance, similarity and topic any phrasing gave it and every stage that
    found it.

    A row ranks by the best rank any phrasing gives it, and rows of the same best rank
    by reciprocal rank fusion of all the orders (k = GAIA_RRF_K): what each phrasing
    finds first comes first, what they agree on before what one alone finds. Fusion
    alone favours what every phrasing finds somewhere over what one finds first, and the
    judge reads only the head: "what does the user do for work" with "user's profession,
    teacher at a secondary school" ranked the answer first, the other wordings did not
    find it at all, and fusion alone put it 40th.
    """
    if len(lists) == 1:
        return lists[0]
    k = settings.GAIA_RRF_K
    scores: dict[int, float] = {}
    first: dict[int, int] = {}
    best: dict[int, fusion.Fused] = {}
    for ranking in lists:
        for rank, f in enumerate(ranking, start=1):
            scores[f.id] = scores.get(f.id, 0.0) + 1.0 / (k + rank)
            first[f.id] = min(rank, first.get(f.id, rank))
            mine = best.get(f.id)
            if mine is None:
                best[f.id] = f
                continue
            best[f.id] = fusion.Fused(
                f.id,
                max(f.score, mine.score),
                f.stages | mine.stages,
                max(f.relevance, mine.relevance),
                max(f.similarity, mine.similarity),
                max(f.topic, mine.topic),
                f.framed or mine.framed,
                f.unmet and mine.unmet,
            )
    order = sorted(
        scores, key=lambda i: (first[i], -scores[i], "conversation" in best[i].stages, i)
    )
    # Each row's score is the reciprocal of its fused rank, so scores agree with the order.
    return [replace(best[i], score=1.0 / (k + n)) for n, i in enumerate(order, start=1)]


def judged_question(wordings: Sequence[str]) -> str:
    """What the judge reads as the question: the question as asked, then the caller's
    phrasings ("Who looks after my teeth? (user's dentist; User's dentist is Dr ...)"):
    one judgement per candidate, with the words the caller knew the question lacks."""
    question, *others = wordings
    others = [o.strip() for o in others if o.strip() and o.strip() != question.strip()]
    return f"{question} ({'; '.join(others)})" if others else question


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
    phrasings: Sequence[tuple[str, str]] = (),
    unspoken: frozenset[str] = frozenset(),
    timed: bool = False,
    keep: int | None = None,
) -> judge.Verdict:
    """The owner's best rows of `corpus` under `filters`, at least `min_relevance`
    relevant, at most `top_k`: retrieval's search, for every caller.

    The linked corpus (`Corpus.source`) is searched for the question as `asked` (default
    `query`), and each of `also` within the same filters; rows take the better of their own
    evidence and theirs (`retrieval.linked`).

    `phrasings` are the caller's other wordings of the question, each (as searched, as
    asked): each is searched like the query and the rankings are fused into one
    (`fuse_phrasings`); the judge reads each candidate once, with the question followed by
    the phrasings (`judged_question`). `timed`: `filters` hold the time the question
    names as people say it ("yesterday"), and the judge weighs that (`judge.judge`).
    `unspoken` are words that say who is asked about (the holder's names, "User"), never
    what: they carry no topic (`retrieval.relevance.absent_and_said`).

    With `judged` (and a judge configured), the judge reads the question as `asked`
    (default `query`) with the first fused candidates, whose text `documents(ids)` gives,
    and its relevance orders and filters them (`retrieval.judge`). Without it, or when it
    fails or runs out of time, the fused order and relevance stand (`Verdict.judged`).
    `keep` (default `top_k`) is how many hits come back: more when the caller reorders
    them before keeping `top_k` (recall's diary notes by age); `top_k` sets how deep the
    stages search. A hit's relevance is at least that of every hit after it (`in_order`).
    """
    wordings = [(query, asked or query)]
    wordings += [(q, a) for q, a in phrasings if q.strip() and (q, a) not in wordings]
    wordings = [(q, a) for q, a in wordings if q.strip()][: 1 + MAX_PHRASINGS]
    if not wordings:
        return judge.Verdict([], judged)
    judging = judged and judge.mode() != "off"
    if judging and not any(relevance.terms_of(a) for _, a in wordings):
        # Nothing but form words ("the", "what is it"): nothing to judge a row against.
        return judge.Verdict([], True)
    limit = max(MIN_CANDIDATES, top_k * CANDIDATES_PER_RESULT)
    where = scoped(corpus, owner_id, filters)
    # The question's token vectors are encoded on the other core while the stages run.
    deciding = judging and late.enabled() and settings.GAIA_JUDGE_DECIDES
    encoding = [late.query_tokens_soon(q) for q, _ in wordings] if deciding else []
    fused = fuse_phrasings(
        [
            ranked(
                corpus,
                owner_id=owner_id,
                query=q,
                where=where,
                limit=limit,
                also=also,
                linked_query=a,
                unspoken=unspoken,
            )
            for q, a in wordings
        ]
    )
    question = judged_question([a for _, a in wordings])
    reason = "skipped" if judged is False else "off"
    if judging:
        kwargs = {"top_k": top_k, "min_relevance": min_relevance, "timed": timed}
        staged = _late_scores(corpus, owner_id, fused, encoding)
        if staged:  # the late stage orders; the judge reads only the pairs that decide
            verdict = decide.decided(
                question, fused, staged, documents, asked=wordings[0][1], **kwargs
            )
        else:
            pool = settings.GAIA_JUDGE_CANDIDATES
            pool = round(pool * PHRASED_POOL) if len(wordings) > 1 else pool
            verdict = judge.judge(
                question, fused, documents, asked=wordings[0][1], candidates=pool, **kwargs
            )
        if verdict.judged or verdict.reason == decide.SETTLED:
            hits = in_order(verdict.hits[: keep or top_k])
            return judge.Verdict(hits, verdict.judged, verdict.reason)
        reason = verdict.reason
    kept = [f for f in fused if f.relevance >= min_relevance][: keep or top_k]
    return judge.Verdict(in_order(kept), False, reason)


def _late_scores(
    corpus: Corpus, owner_id: int, fused: list[fusion.Fused], encoding: Sequence[Future]
) -> dict[int, float]:
    """MaxSim of the first `decide.POOL` fused candidates that hold token vectors of the
    current model (`retrieval.late`), each at its best over the question's wordings
    (`encoding`: their token vectors, being encoded); {} when none do or the model cannot
    run (then the judge reads the candidates as before)."""
    if not encoding or not fused:
        return {}
    try:
        vectors = [e.result() for e in encoding]
        ids = [f.id for f in fused[: decide.POOL]]
        return late.scores(corpus, owner_id, "", ids, query_vectors=vectors)
    except late.TokensError as error:
        log.warning("late stage skipped: %s", error)
        return {}


def in_order(hits: list[fusion.Fused]) -> list[fusion.Fused]:
    """The hits with relevances that agree with their order (`fusion.in_order`)."""
    relevances = fusion.in_order([f.relevance for f in hits])
    return [replace(f, relevance=r) for f, r in zip(hits, relevances, strict=True)]


def relevances_in_order(relevances: Sequence[float]) -> list[float]:
    """Relevances of hits a caller reordered, made to agree with that order again
    (`fusion.in_order`: each at least the relevance of every hit after it)."""
    return fusion.in_order(relevances)
