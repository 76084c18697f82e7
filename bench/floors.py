"""What a relevance floor costs and what it keeps out, for `memory_eval locomo`.

Every linked question's hits (asked with `min_relevance` 0) are cut at each of FLOORS, as
if it were the default: the evidence still found in the top 10 (facts and turns), the own
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


def probe_first(scores, is_wanted: Sequence[bool], relevances: Sequence[float]) -> None:
    """Whether the first hit kept under each floor is the wanted one (own facts)."""
    for floor in FLOORS:
        first = next((w for w, r in zip(is_wanted, relevances, strict=True) if r >= floor), False)
        scores.probe(_name(floor, "own top-1"), float(first))


def probe_nonsense(scores, target: str, relevances: Sequence[float], top_k: int) -> None:
    """How many hits a nonsense question keeps under each floor (at most `top_k`)."""
    for floor in FLOORS:
        scores.probe(_name(floor, target), float(min(top_k, sum(r >= floor for r in relevances))))


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
