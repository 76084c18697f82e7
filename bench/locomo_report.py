"""The tables `memory_eval locomo` prints from a run's `Scores` (bench/locomo.py)."""

from django.conf import settings

from bench.locomo import KS, LINKS, Scores
from bench.locomo_data import CATEGORIES

# The rankings `memory_eval --ranking` compares: each the settings it runs under.
RANKINGS = {
    "minilm": {
        "about": "all-MiniLM-L6-v2, fused order, no judge: the ranking before the judge",
        "settings": {"GAIA_LOCAL_EMBED_MODEL": "all-minilm-l6-v2", "GAIA_JUDGE": "off"},
    },
    "bge": {
        "about": "bge-small-en-v1.5, fused order, no judge",
        "settings": {"GAIA_LOCAL_EMBED_MODEL": "bge-small-en-v1.5", "GAIA_JUDGE": "off"},
    },
    "judged": {
        "about": "bge-small-en-v1.5 with the relevance judge: the defaults",
        "settings": {"GAIA_LOCAL_EMBED_MODEL": "bge-small-en-v1.5", "GAIA_JUDGE": "local"},
    },
}


def summary_table(runs: list[tuple[str, tuple]]) -> list[str]:
    """The headline of each ranking's run, one row each."""
    floor = settings.GAIA_MIN_RELEVANCE
    rows = [
        f"| ranking | facts R@10 unlinked / linked / mixed (floor {floor}) | turns R@10 "
        f"(floor {floor}) | own top-1 | nonsense hits (recall / turns) | accounts rank 1 "
        "/ top 5 / nonsense with hits / broad answered |",
        "|---|---|---|---|---|---|",
    ]
    for name, (scores, accounts) in runs:
        facts = " / ".join(f"{scores.mean(f'facts {c} floored', 'overall', 10):.3f}" for c in LINKS)
        turns = f"{scores.mean('turns floored', 'overall', 10):.3f}"
        own = f"{scores.probe_mean('own top-1'):.3f}"
        nonsense = (
            f"{scores.probe_mean('nonsense recall hits'):.2f} / "
            f"{scores.probe_mean('nonsense turn hits'):.2f}"
        )
        acct = "; ".join(
            f"{a.name}: {a.top1 / max(1, a.questions):.3f} / {a.top5 / max(1, a.questions):.3f}"
            f" / {a.nonsense_answered} of {a.nonsense} / {a.broad_answered} of {a.broad}"
            for a in accounts
        )
        rows.append(f"| {name} | {facts} | {turns} | {own} | {nonsense} | {acct or '-'} |")
    return rows


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
