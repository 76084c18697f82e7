"""Reciprocal Rank Fusion: a pure function of ranked id lists.

score(id) = sum over stages of weight / (k + rank), rank counted from 1; an id missing
from a stage's list counts as ranked just after that list's last entry, so agreement
between stages is rewarded without letting one stage veto the other.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    stages: frozenset[str]

    @property
    def matched_by(self) -> str:
        return "both" if len(self.stages) > 1 else next(iter(self.stages))


def rrf(
    rankings: Mapping[str, Sequence[int]], weights: Mapping[str, float], k: int = 60
) -> list[Fused]:
    """Fused ranking of every id in `rankings`, best first (ties keep first-seen order)."""
    scores: dict[int, float] = {}
    stages: dict[int, set[str]] = {}
    for stage, ids in rankings.items():
        weight = weights.get(stage, 1.0)
        for rank, item_id in enumerate(ids, start=1):
            seen = stages.setdefault(item_id, set())
            if stage in seen:
                continue  # a repeated id counts once, at its best rank
            seen.add(stage)
            scores[item_id] = scores.get(item_id, 0.0) + weight / (k + rank)
    for stage, ids in rankings.items():
        missing_score = weights.get(stage, 1.0) / (k + len(ids) + 1)
        for item_id in scores:
            if stage not in stages[item_id]:
                scores[item_id] += missing_score
    order = {item_id: position for position, item_id in enumerate(scores)}
    ranked = sorted(scores, key=lambda item_id: (-scores[item_id], order[item_id]))
    return [Fused(i, scores[i], frozenset(stages[i])) for i in ranked]
