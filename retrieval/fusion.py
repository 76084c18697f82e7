"""Reciprocal Rank Fusion: a pure function of ranked id lists.

score(id) = sum over stages of weight / (k + rank), rank counted from 1; an id missing
from a stage's list counts as ranked just after the depth that stage searched, so
agreement between stages is rewarded without letting one stage veto the other.
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    stages: frozenset[str]
    relevance: float = 0.0  # in [0, 1], comparable across queries (`retrieval.relevance`)
    similarity: float = 0.0  # the part of it the row's own embedding gives (0: none)
    # How near the row is, by meaning, to the words of the question that none of the
    # owner's rows hold and that can name something ("horse" asked of someone who never
    # mentioned one; not "anything": `retrieval.unsaid.topical`), 0..1 on the similarity
    # scale; 1 when the question has no such words.
    topic: float = 1.0
    # Whether the question's words the row holds (the holder's names aside) are all words
    # that many of the owner's rows hold ("favourite", "team": `relevance.FRAME_SHARE`):
    # with the absent words unmet (`topic` 0), such a match says nothing.
    framed: bool = False
    # Whether the question names something none of the owner's rows hold ("marathon",
    # "piano") and the row's similarity does not follow those words (`retrieval.unsaid`):
    # it matched the question's other words only.
    unmet: bool = False

    @property
    def matched_by(self) -> str:
        """Which of vector and keyword found it ("both" for the two), else the other stage."""
        direct = self.stages & {"vector", "keyword"}
        if len(direct) > 1:
            return "both"
        return next(iter(direct or self.stages))


def rrf(
    rankings: Mapping[str, Sequence[int]],
    weights: Mapping[str, float],
    k: int = 60,
    *,
    partial: Collection[str] = (),
    stage_k: Mapping[str, int] | None = None,
    depth: int = 0,
) -> list[Fused]:
    """Fused ranking of every id in `rankings`, best first (ties keep first-seen order).

    An id missing from a stage counts as ranked just after `depth` (how many candidates
    the stage was asked for) or after its list's end if that is longer: a keyword stage
    that found one row out of 40 asked for has said the others do not match.

    Stages named in `partial` only propose: an id missing from them scores nothing there
    (their lists are short or empty for most queries, so "just after the end" would hide
    what they found). `stage_k` gives a stage its own k (smaller: rank matters more).
    """
    scores: dict[int, float] = {}
    stages: dict[int, set[str]] = {}
    for stage, ids in rankings.items():
        weight = weights.get(stage, 1.0)
        stage_offset = (stage_k or {}).get(stage, k)
        for rank, item_id in enumerate(ids, start=1):
            seen = stages.setdefault(item_id, set())
            if stage in seen:
                continue  # a repeated id counts once, at its best rank
            seen.add(stage)
            scores[item_id] = scores.get(item_id, 0.0) + weight / (stage_offset + rank)
    for stage, ids in rankings.items():
        if stage in partial:
            continue
        missing_score = weights.get(stage, 1.0) / (k + max(len(ids), depth) + 1)
        for item_id in scores:
            if stage not in stages[item_id]:
                scores[item_id] += missing_score
    order = {item_id: position for position, item_id in enumerate(scores)}
    ranked = sorted(scores, key=lambda item_id: (-scores[item_id], order[item_id]))
    return [Fused(i, scores[i], frozenset(stages[i])) for i in ranked]


def in_order(relevances: Sequence[float]) -> list[float]:
    """Relevances of hits listed best first, made to agree with that order: each is at
    least the relevance of every hit listed after it (a hit the ranking puts first is at
    least as relevant as the ones it puts after it). The ranking weighs more than any one
    relevance does (the judge's reading, kept near the fused order), so it decides; the
    relevance a hit gains is that of a hit it was ranked above."""
    out = list(relevances)
    for i in range(len(out) - 2, -1, -1):
        out[i] = max(out[i], out[i + 1])
    return out
