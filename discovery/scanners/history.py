"""Browser history: the most visited domains of the last N days. Always sensitive.

Only the URL column is read (reduced to its domain) with visit times; page titles and
contents are never selected. Each database is read from a private read-only copy.
"""

from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

from discovery.scanners import fs, paths
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState
from discovery.scanners.browsers import domain

TOP_DOMAINS = 10
MAX_URLS = 100_000
# Chromium counts microseconds from 1601-01-01, Firefox from 1970-01-01.
_CHROMIUM_EPOCH_OFFSET_US = 11_644_473_600 * 1_000_000

_CHROMIUM_SQL = """
    SELECT urls.url, COUNT(*) FROM visits JOIN urls ON urls.id = visits.url
    WHERE visits.visit_time >= ? GROUP BY urls.id LIMIT ?
"""
_FIREFOX_SQL = """
    SELECT place.url, COUNT(*) FROM moz_historyvisits AS visit
    JOIN moz_places AS place ON place.id = visit.place_id
    WHERE visit.visit_date >= ? GROUP BY place.id LIMIT ?
"""


def _since_us(ctx: ScanContext) -> int:
    return int((ctx.now - timedelta(days=ctx.days)).timestamp() * 1_000_000)


def _count(counts: Counter, db, sql: str, since: int) -> None:
    for url, visits in db.execute(sql, (since, MAX_URLS)):
        host = domain(url)
        if host:
            counts[host] += int(visits)


def visits(ctx: ScanContext, state: ScanState) -> Counter:
    counts: Counter = Counter()
    since = _since_us(ctx)
    chromium_since = since + _CHROMIUM_EPOCH_OFFSET_US
    sources = [
        (f"{label} {p.name}", p / "History", _CHROMIUM_SQL, chromium_since)
        for label, p in paths.chromium_profiles(ctx)
    ]
    sources += [
        (f"Firefox {p.name}", p / "places.sqlite", _FIREFOX_SQL, since)
        for p in paths.firefox_profiles(ctx)
    ]
    for label, path, sql, threshold in sources:
        if not path.exists() or state.expired():
            continue
        try:
            with fs.sqlite_copy(path, ctx.home, state) as db:
                _count(counts, db, sql, threshold)
        except Exception as error:  # noqa: BLE001 - one browser's file must not end the scan
            state.warn(f"{label}: {path.name} unreadable ({error})")
    return counts


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    counts = visits(ctx, state)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_DOMAINS]
    for host, _ in ranked:
        yield Found(f"Often visits {host}", sensitive=True)


SCANNER = Scanner(
    name="history",
    description="browser history: the most visited domains of the last N days (sensitive)",
    scan=scan,
    always_sensitive=True,
)
