"""What a relevance floor costs and what it keeps out, for `memory_eval locomo`.

Every linked question's top 10 (asked with `min_relevance` 0) is cut at each of FLOORS, as
the main table cuts it at the default: the evidence still found (facts and turns). The own
facts and nonsense questions are asked again with each floor as `min_relevance`: the own
facts still put first, and the hits nonsense questions still get. A floor that removes the
nonsense hits only by removing answers too shows up here as a row, not as a guess.
"""

from collections.abc import Sequence

FLOORS = (0.2, 0.3, 0.4, 0.5, 0.6)


def _name(floor: float, what: str) -> str:
    return f"floor {floor} {what}"


def probe_evidence(
    scores, target: str, wanted: set[str], found: Sequence[set], relevances: Sequence[float]
) -> None:
    """R@10 of one question's ranked hits (`found`: dia ids per hit) under each floor."""
    for floor in FLOORS:
        kept = [f for f, r in zip(found, relevances, strict=True) if r >= floor][:10]
        got = set().union(*kept) if kept else set()
        scores.probe(_name(floor, target), len(wanted & got) / len(wanted))


def probe(scores, floor: float, what: str, value: float) -> None:
    """One question's `value` under `floor` (asked with that floor as `min_relevance`)."""
    scores.probe(_name(floor, what), value)


def floors_table(scores) -> list[str]:
    """One row per floor; empty when no floors were probed."""
    if not scores.probe_count(_name(FLOORS[0], "facts")):
        return []
    columns = ["facts", "turns", "own top-1", "nonsense recall hits", "nonsense turn hits"]
    rows = [
        "| floor | facts R@10 (linked) | turns R@10 | own top-1 | nonsense recall hits "
        "| nonsense turn hits |",
        "|---|---|---|---|---|---|",
    ]
    for floor in FLOORS:
        cells = [
            f"{scores.probe_mean(_name(floor, c)):.{2 if c.startswith('nonsense') else 3}f}"
            for c in columns
        ]
        rows.append(f"| {floor} | {' | '.join(cells)} |")
    return rows
