"""The tables `memory_eval locomo` prints from a run's `Scores` (bench/locomo.py)."""

from django.conf import settings

from bench.locomo import KS, LINKS, Scores
from bench.locomo_data import CATEGORIES


def conditions_table(scores: Scores) -> list[str]:
    """Every condition in one table: LoCoMo recall@k by how facts link, and the probes."""
    floor = settings.GAIA_MIN_RELEVANCE
    rows = [
        f"| condition | facts R@5 | facts R@10 | facts R@10, floor {floor} | turns R@5 "
        f"| turns R@10 | turns R@10, floor {floor} |",
        "|---|---|---|---|---|---|---|",
    ]
    for condition in LINKS:
        cells = [
            *(f"{scores.mean(f'facts {condition}', 'overall', k):.3f}" for k in KS),
            f"{scores.mean(f'facts {condition} floored', 'overall', 10):.3f}",
            *(f"{scores.mean('turns', 'overall', k):.3f}" for k in KS),
            f"{scores.mean('turns floored', 'overall', 10):.3f}",
        ]
        rows.append(f"| LoCoMo, facts {condition} | {' | '.join(cells)} |")
    facts_n, turns_n = scores.probe_count("facts R@5"), scores.probe_count("turns R@5")
    for label, suffix in (
        (f"filtered: facts by person (n={facts_n}), turns by session (n={turns_n})", " filtered"),
        ("the same questions, no filter", ""),
    ):
        if facts_n or turns_n:
            cells = [
                f"{scores.probe_mean(f'{target}{suffix} R@{k}{floored}'):.3f}"
                for target in ("facts", "turns")
                for k, floored in ((5, ""), (10, ""), (10, " floored"))
            ]
            rows.append(f"| LoCoMo, {label} | {' | '.join(cells)} |")
    if scores.probe_count("own top-1"):
        rows += ["", "| probe | value |", "|---|---|"]
        for name in ("own top-1", "own top-3"):
            rows.append(
                f"| {name} (rate, n={scores.probe_count(name)}) | {scores.probe_mean(name):.3f} |"
            )
        for name in ("nonsense recall hits", "nonsense turn hits"):
            rows.append(
                f"| {name} (per question, n={scores.probe_count(name)}) | "
                f"{scores.probe_mean(name):.2f} |"
            )
    return rows


def table(scores: Scores) -> list[str]:
    rows = [
        "| category | questions | turns R@5 | turns R@10 | facts R@5 | facts R@10 "
        "| facts ceiling |",
        "|---|---|---|---|---|---|---|",
    ]
    for category in [*CATEGORIES.values(), "overall"]:
        if not scores.counts.get(category):
            continue
        cells = [
            f"{scores.mean(t, category, k):.3f}" for t in ("turns", "facts linked") for k in KS
        ]
        ceiling = f"{scores.mean('ceiling linked', category, 0):.3f}"
        rows.append(f"| {category} | {scores.counts[category]} | {' | '.join(cells)} | {ceiling} |")
    return rows
