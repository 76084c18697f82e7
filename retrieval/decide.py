"""Judged recall at the cost of a search: the late stage orders, the judge only decides.

The cross-encoder reading the first 20 fused candidates of every question made a judged
recall cost several fast recalls. Here the late-interaction stage (`retrieval.late`,
MaxSim over stored token vectors, each row at its best over the question's wordings)
orders the first POOL fused candidates instead: each row with vectors of the current
model that stands by its own text takes the reciprocal-rank fusion of its fused rank and
its MaxSim rank, in the places such rows held (`staged`; any other row keeps its fused
place). MaxSim orders, it never says that a text is unrelated, so the judge still reads
the pairs whose answer changes what is returned (`to_judge`), and relevance stays
absolute:

- every candidate that would be among the first `top_k` returned and that the judge
  could veto (its embedding is not STRONGly similar to the question, and no time the
  question named chose it) or that only the judge could keep (below the floor); one it
  vetoes gives its place to the next, which is read in turn, so a question about nothing
  stored still gets nothing (at most GAIA_JUDGE_CANDIDATES pairs, as before);
- a close call between the first two: the fused stage and MaxSim order them differently;
- what the stage could not place: rows without token vectors, rows another search
  brought (a relation's: the judge reads them after the relation).

A question whose first candidate is settled (the embedding vouches for it, both stages
put it first, nothing unplaced) reads no pair: the answer is the staged order at the
fused relevance, not `judged`, and says "settled". When no candidate has token vectors
(late interaction off, the vectors not yet written, the model missing), the judge reads
the candidates as before (`retrieval.judge.judge`).
"""

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from django.conf import settings

from core.server import metrics
from retrieval import fusion, judge
from retrieval.crossencoder import JudgeError, JudgeTimeout

log = logging.getLogger(__name__)
POOL = 30  # fused candidates the late stage reorders (docs/decisions.md)
SETTLED = "settled"
# Stages that found a row by its own text (or its own source turn, its day, its speaker).
OWN_TEXT = frozenset({"vector", "keyword", "conversation", "date", "speaker"})


def staged(fused: Sequence[fusion.Fused], late: Mapping[int, float]) -> list[fusion.Fused]:
    """The first POOL of `fused` reordered by the late stage, then the rest as fused.

    A row with a MaxSim score (`late`) ranks by the reciprocal-rank fusion of its fused
    rank and its MaxSim rank (k = GAIA_RRF_K; ties by fused rank) among the places those
    rows held; a row without one keeps its place. Scores are those of the places, so they
    stay in order."""
    pool, rest = list(fused[:POOL]), list(fused[POOL:])
    scored = [(rank, f) for rank, f in enumerate(pool, start=1) if _by_text(f, late)]
    if not scored:
        return pool + rest
    by_late = sorted(scored, key=lambda rf: (-late[rf[1].id], rf[0]))
    late_rank = {f.id: n for n, (_, f) in enumerate(by_late, start=1)}
    k = settings.GAIA_RRF_K
    combined = iter(
        sorted(scored, key=lambda rf: (-(1 / (k + rf[0]) + 1 / (k + late_rank[rf[1].id])), rf[0]))
    )
    order = [next(combined)[1] if _by_text(f, late) else f for f in pool]
    return [replace(f, score=slot.score) for f, slot in zip(order, pool, strict=True)] + rest


def _by_text(f: fusion.Fused, late: Mapping[int, float]) -> bool:
    """Whether the late stage ranks `f`: it has token vectors, and it stands by its own
    text (a row another search brought, such as a relation's, keeps its place: the judge
    reads it after that relation, MaxSim could not)."""
    return f.id in late and f.stages <= OWN_TEXT


def _open(f: fusion.Fused, floor: float, timed: bool) -> bool:
    """Whether the judge's word on `f` could change whether it is returned: it could veto
    it (its embedding does not vouch for it; a named time does not choose it) or only the
    judge could keep it (its fused relevance is below a floor)."""
    vetoable = not timed and f.similarity < judge.STRONG
    return vetoable or (floor > 0 and f.relevance < floor)


def close_call(order: Sequence[fusion.Fused], fused_rank: Mapping[int, int], late: Mapping) -> bool:
    """Whether the fused stage and MaxSim disagree on which of the first two is better."""
    if len(order) < 2 or order[0].id not in late or order[1].id not in late:
        return False
    first, second = order[0].id, order[1].id
    return (fused_rank[first] < fused_rank[second]) != (late[first] > late[second])


def to_judge(
    head: Sequence[fusion.Fused],
    read: Mapping[int, tuple[float, float]],
    first: Sequence[int],
    *,
    top_k: int,
    floor: float,
    timed: bool,
) -> list[int]:
    """Positions of `head` whose pairs the judge reads next: those of `first` (a close
    call) not yet read, and every candidate not yet read that would be among the first
    `top_k` returned and whose fate the judge decides (`_open`). A candidate the judge
    failed is not returned, so the one after it moves up."""
    todo = [n for n in first if n not in read]
    shown = 0
    for n, f in enumerate(head):
        if shown >= top_k:
            break
        if n in read:
            shown += not _failed(f, read[n][1], floor)
        else:
            if _open(f, floor, timed) and n not in todo:
                todo.append(n)
            shown += 1
    return todo


def _failed(f: fusion.Fused, relevance: float, floor: float) -> bool:
    """Whether the judge took the candidate's standing away: below the floor, or less
    relevant than the fused evidence made it (a veto)."""
    return relevance < floor or relevance < f.relevance


@metrics.timed("judge")
def decided(
    question: str,
    fused: list[fusion.Fused],
    late: Mapping[int, float],
    documents: Callable[[list[int]], dict[int, str]],
    *,
    top_k: int,
    min_relevance: float,
    timed: bool = False,
    asked: str = "",
) -> judge.Verdict:
    """The staged candidates (`staged`), the judge reading only the pairs that decide
    (`to_judge`; none when the first is settled), those below `min_relevance` left out.
    Judged pairs are ordered among their places by the judge (`judge.blend`); the others
    keep their staged place and fused relevance. With no floor every candidate comes
    back, those the judge vetoed last; with a floor, only the first
    GAIA_JUDGE_CANDIDATES (the judge's budget) can."""
    floor = min_relevance * judge.TIMED_FLOOR if timed else min_relevance
    if not fused:
        return judge.Verdict([], True)
    fused_rank = {f.id: n for n, f in enumerate(fused, start=1)}
    head_size = max(top_k, settings.GAIA_JUDGE_CANDIDATES)
    order = staged(fused, late)
    head, tail = order[:head_size], order[head_size:]
    deadline = time.monotonic() + settings.GAIA_JUDGE_DEADLINE
    texts = _once(documents)
    read: dict[int, tuple[float, float]] = {}  # position -> (score, relevance) by the judge
    first = [0, 1] if close_call(head, fused_rank, late) else []
    # What the stage could not place (no token vectors, or brought by another search) the
    # judge reads: its place is the fused stage's guess.
    first += [n for n, f in enumerate(head) if not _by_text(f, late) and n not in first]
    try:
        if first or _open(head[0], floor, timed):  # else settled: nothing to decide
            while todo := to_judge(head, read, first, top_k=top_k, floor=floor, timed=timed):
                _read_at(question, asked, head, todo, read, texts, deadline, fused_rank, timed)
    except JudgeTimeout as error:
        log.warning("recall not judged: %s", error)
        return judge.Verdict(order, False, "deadline")
    except JudgeError as error:
        log.warning("recall not judged: %s", error)
        return judge.Verdict(order, False, "unavailable")
    placed, sunk = _placed(head, read, floor)
    if floor > 0:  # what the judge could never read is not returned above a floor
        kept = [f for f in placed if f.relevance >= floor]
    else:
        kept = placed + tail + sunk
    if not read:
        return judge.Verdict(kept, False, SETTLED)
    return judge.Verdict(kept, True)


def _once(
    documents: Callable[[list[int]], dict[int, str]],
) -> Callable[[list[int]], dict[int, str]]:
    """`documents`, asked at most once (for the whole head: one statement, however many
    rounds the judge reads)."""
    known: dict[tuple[int, ...], dict[int, str]] = {}

    def read(ids: list[int]) -> dict[int, str]:
        key = tuple(ids)
        if key not in known:
            known[key] = documents(ids)
        return known[key]

    return read


def _read_at(
    question: str,
    asked: str,
    head: Sequence[fusion.Fused],
    positions: Sequence[int],
    read: dict[int, tuple[float, float]],
    documents: Callable[[list[int]], dict[int, str]],
    deadline: float,
    fused_rank: Mapping[int, int],
    timed: bool,
) -> None:
    """The judge's (score, relevance) for the candidates at `positions` not yet read, into
    `read`: its reading kept near the fused order, as when it reads every candidate
    (`judge.blend`, at the fused rank; measured better than at the staged one)."""
    todo = [n for n in positions if n not in read]
    if not todo:
        return
    texts = documents([f.id for f in head])  # read once, with the first pairs (`_once`)
    for n in todo:
        if head[n].id not in texts:  # gone meanwhile: nothing to return
            read[n] = (0.0, 0.0)
    todo = [n for n in todo if head[n].id in texts]
    if not todo:
        return
    scores = judge.read_pairs(question, asked, [texts[head[n].id] for n in todo], deadline)
    for n, p in zip(todo, scores, strict=True):
        read[n] = judge.blend(p, head[n], fused_rank[head[n].id] - 1, timed=timed)


def _placed(
    head: Sequence[fusion.Fused], read: Mapping[int, tuple[float, float]], floor: float
) -> tuple[list[fusion.Fused], list[fusion.Fused]]:
    """(the head with the judged candidates ordered by the judge among their places, each
    with the judge's relevance, those it left below the floor out; those it vetoed)."""
    judged = sorted(read, key=lambda n: -read[n][0])
    slots = iter(judged)
    out: list[fusion.Fused] = []
    sunk: list[fusion.Fused] = []
    for n, f in enumerate(head):
        if n not in read:
            out.append(f)
            continue
        m = next(slots)
        mine = replace(head[m], score=f.score, relevance=read[m][1])
        if mine.relevance < floor:
            continue
        if _failed(head[m], read[m][1], floor):
            sunk.append(replace(mine, score=head[-1].score))
            continue
        out.append(mine)
    return out, sunk
