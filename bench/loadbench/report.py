"""load_bench's tables: the routings side by side, and every process's memory against
the index-cache budget with how its indexes were kept current."""

from bench.loadbench.driver import MIX, Results, percentile
from bench.loadbench.fleet import Process
from bench.loadbench.modes import ModeRun

COLUMNS = f"{'requests':>9}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>7}"


def _cells(results: Results, kind: str) -> str:
    if kind == "all":
        values = [v for latencies in results.latencies.values() for v in latencies]
        errors = sum(results.errors.values())
    else:
        values, errors = results.latencies.get(kind, []), results.errors.get(kind, 0)
    rate = len(values) / results.elapsed if results.elapsed else 0.0
    p50, p99 = (percentile(values, q) * 1000 for q in (0.5, 0.99))
    return f"{len(values):>9}{rate:>8.1f}{p50:>9.1f}{p99:>9.1f}{errors:>7}"


def side_by_side(runs: list[ModeRun]) -> list[str]:
    """Per endpoint and all: requests, req/s, p50, p99 and errors of each routing."""
    width = len(COLUMNS)
    lines = [" " * 10 + " | ".join(f"{run.name:^{width}}" for run in runs)]
    lines.append(f"{'endpoint':<10}" + " | ".join(COLUMNS for _ in runs))
    seen = {kind for run in runs for kind in run.results.latencies}
    for kind in [*(k for k in MIX if k in seen), "all"]:
        lines.append(f"{kind:<10}" + " | ".join(_cells(run.results, kind) for run in runs))
    for run in runs:
        spread = ", ".join(f"{n}" for n in run.results.per_server)
        lines.append(
            f"{run.name}: requests per server {spread}; task failures {run.task_failures}, "
            f"tasks still queued {run.queued_left}"
        )
    return lines


def processes(runs: list[ModeRun], budget_mb: int) -> list[str]:
    """Each process's RSS (now and peak) and, for web workers, its index cache against
    GAIA_INDEX_CACHE_MB and how it came by its indexes."""
    lines = [
        f"Per process (GAIA_INDEX_CACHE_MB={budget_mb}: the index cache of each web worker "
        "is bounded by it; RSS = that + the model + Python; a task cluster's row sums "
        "its processes, xN):",
        f"{'routing':<16}{'process':<20}{'pid':>8}{'RSS MB':>8}{'PSS MB':>8}{'peak MB':>8}"
        f"{'cache MB':>9}{'within':>7}{'indexes':>8}{'cold':>6}{'snap':>6}{'catch':>7}"
        f"{'rebuild':>8}{'in-pl':>7}",
    ]
    for run in runs:
        web = [p for p in run.processes if p.role.startswith("web")]
        for p in web + _clusters([p for p in run.processes if p not in web]):
            lines.append(f"{run.name:<16}" + _process_cells(p, budget_mb))
    return lines


def _clusters(tasks: list[Process]) -> list[Process]:
    """One row per task cluster: its processes' memory summed (peak: the largest)."""
    rows = []
    for number in sorted({p.server for p in tasks}):
        tree = [p for p in tasks if p.server == number]
        root = next((p for p in tree if p.role == "task cluster"), tree[0])
        rows.append(
            Process(
                number,
                f"task cluster {number} x{len(tree)}",
                root.pid,
                sum(p.rss_mb for p in tree),
                sum(p.pss_mb for p in tree),
                max(p.peak_mb for p in tree),
            )
        )
    return rows


def _process_cells(p: Process, budget_mb: int) -> str:
    name = p.role if p.role.startswith("task") else f"{p.role} {p.server}"
    cells = f"{name:<20}{p.pid:>8}{p.rss_mb:>8.0f}{p.pss_mb:>8.0f}{p.peak_mb:>8.0f}"
    if not p.stats:
        return cells
    s = p.stats
    cache_mb = s["bytes"] / 2**20
    within = "yes" if cache_mb <= budget_mb else "NO"
    snap = s.get("snapshots_loaded", 0) + s.get("snapshots_caught_up", 0)
    return (
        cells + f"{cache_mb:>9.1f}{within:>7}{s['indexes']:>8}{s['builds']:>6}{snap:>6}"
        f"{s['catch_ups']:>7}{s['rebuilds']:>8}{s['in_place']:>7}"
    )


LEGEND = (
    "cold: indexes not cached when asked (built from the database or mapped from a "
    "snapshot); snap: of those, mapped from a snapshot; catch: brought current from the "
    "change log after another process's write; rebuild: cached but could not catch up; "
    "in-pl: this process's own writes applied in place."
)
