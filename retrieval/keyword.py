"""Keyword stage: BM25 over SQLite FTS5, or PostgreSQL full-text search.

User text never reaches the query syntax: it is reduced to plain word terms, each
quoted, so quotes, `AND (`, `*`, `NEAR` or emoji are just words (or nothing).
Rows matching every meaningful term (AND) come first; when they are fewer than the
limit, rows matching any term (OR) fill the rest, so a question whose words never all
occur in one row still finds the rows that share most of them. Both searches are one
statement (UNION ALL of the two, each with its own limit): one round trip.

Ranking an OR query scores every row holding any of its terms, so on SQLite the work
is bounded: terms are taken rarest first until their postings reach OR_BUDGET; the most
common words (which carry the least weight in BM25 anyway) are left to the vector stage.
"""

import math
import re
import threading
import time
from dataclasses import dataclass, field

from django.db import connection

from retrieval import termstats
from retrieval.fulltext_schema import FullTextSpec, vocab_table
from retrieval.termstats import owner_terms, stem

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 48
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her his how i if in "
    "is it its me my of on or our she so that the their them they this to was we were what "
    "when where which who whom why will with you your".split()
)


def query_terms(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """Distinct lower-case word terms of `text`, in order, at most MAX_TERMS."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if drop_stopwords and word in STOPWORDS:
            continue
        seen.setdefault(word, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


@dataclass
class Where:
    """SQL conditions on the model table (aliased `t`), with their parameters."""

    clauses: list[str] = field(default_factory=list)
    params: list = field(default_factory=list)
    owner_id: int | None = None  # the one owner these conditions are scoped to

    def add(self, clause: str, *params: object) -> "Where":
        self.clauses.append(clause)
        self.params.extend(params)
        return self

    def sql(self) -> str:
        return "".join(f" AND {c}" for c in self.clauses)


def search(
    spec: FullTextSpec, text: str, where: Where, limit: int, *, any_term: bool = False
) -> list[tuple[int, float]]:
    """(row id, score) best first; higher score is better. `where` must scope the owner.

    `any_term` skips the AND pass (dedup wants every item sharing a word).
    """
    hits = search_rows(spec, text, where, limit, any_term=any_term)
    return [(row_id, score) for row_id, score, _ in hits]


def search_rows(
    spec: FullTextSpec,
    text: str,
    where: Where,
    limit: int,
    *,
    columns: tuple[str, ...] = (),
    any_term: bool = False,
) -> list[tuple[int, float, tuple]]:
    """`search`, each hit with the values of `columns` (SQL on the model table `t`) read
    by the same statement: recall needs the found rows' text anyway."""
    if where.owner_id is None:
        raise ValueError("keyword search must be scoped to one owner")
    terms = query_terms(text, drop_stopwords=True) or query_terms(text)
    if not terms or limit <= 0:
        return []
    # The choice is made on the owner's own counts (retrieval/termstats.py). On SQLite
    # the global ones bound the work (FTS5 scans a word's postings of every owner), far
    # above what one owner's choice needs: another user's rows decide nothing short of
    # a flood.
    mine = owner_terms(spec, where.owner_id)
    counts = {term: mine.frequency(term) for term in terms}
    if connection.vendor == "sqlite":
        everyones = _document_frequencies(spec, terms)
        terms = [t for t in terms if everyones[t] <= COST_CAP]
    terms = _within_budget(terms, counts, ANY_TERM_BUDGET if any_term else OR_BUDGET)
    if not terms:
        return []
    run = _sqlite if connection.vendor == "sqlite" else _postgres
    ops = ("OR",) if len(terms) == 1 or any_term else ("AND", "OR")
    hits: list[tuple[int, float, tuple]] = []
    seen: set[int] = set()
    for hit in run(_Query(spec, terms, ops, where, limit, columns)):  # AND's rows first
        if hit[0] not in seen and len(hits) < limit:
            seen.add(hit[0])
            hits.append(hit)
    return hits


@dataclass(frozen=True)
class _Query:
    """One search as a backend runs it: each of `ops` (AND, OR) joins `terms`."""

    spec: FullTextSpec
    terms: list[str]
    ops: tuple[str, ...]
    where: Where
    limit: int
    columns: tuple


def _extra(columns: tuple[str, ...]) -> str:
    return "".join(f", {c}" for c in columns)


def _sqlite(q: _Query) -> list[tuple[int, float, tuple]]:
    """Each op's best `q.limit` rows, the first op's first: (id, score, column values)."""
    fts, table = q.spec.fts, q.spec.table
    weights = ", ".join(str(w) for w in q.spec.bm25_weights())
    arms, params = [], []
    for arm, op in enumerate(q.ops):
        arms.append(
            f"SELECT * FROM (SELECT {arm} AS arm, t.id, bm25({fts}, {weights}) AS rank"
            f"{_extra(q.columns)} FROM {fts} JOIN {table} t ON t.id = {fts}.rowid "
            f"WHERE {fts} MATCH %s{q.where.sql()} ORDER BY rank LIMIT %s)"
        )
        params += [f" {op} ".join(f'"{t}"' for t in q.terms), *q.where.params, q.limit]
    sql = " UNION ALL ".join(arms) + (" ORDER BY arm, rank" if len(arms) > 1 else "")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[1], -float(row[2]), row[3:]) for row in cursor.fetchall()]


def _postgres(q: _Query) -> list[tuple[int, float, tuple]]:
    """Each op's best `q.limit` rows, the first op's first: (id, score, column values)."""
    # PostgreSQL's ts_rank knows no inverse document frequency: a name present in every
    # row would weigh as much as a rare word. Each term's ts_rank is therefore weighted
    # by its BM25 idf among the owner's rows.
    text = " ".join(q.terms)
    weights = _owner_idf(q.spec, q.terms, q.where)
    # The per-term queries are parsed once, in the subquery, not once per row.
    rank = " + ".join(f"%s * ts_rank(t.search_tsv, s.q{n}, 1)" for n in range(len(weights)))
    parts = "".join(f", plainto_tsquery('english', %s) AS q{n}" for n in range(len(weights)))
    arms, params = [], []
    for arm, op in enumerate(q.ops):
        query = "plainto_tsquery('english', %s)"
        if op == "OR":
            query = f"CAST(replace(CAST({query} AS text), ' & ', ' | ') AS tsquery)"
        arms.append(
            f"(SELECT {arm} AS arm, t.id, ({rank or '0'}) AS rank{_extra(q.columns)} "
            f"FROM {q.spec.table} t, (SELECT {query} AS q{parts}) s "
            f"WHERE t.search_tsv @@ s.q{q.where.sql()} ORDER BY rank DESC, t.id DESC LIMIT %s)"
        )
        params += [*weights.values(), text, *weights.keys(), *q.where.params, q.limit]
    sql = " UNION ALL ".join(arms)
    if len(arms) > 1:  # one arm is in order already (and may not be ordered twice)
        sql += " ORDER BY arm, rank DESC, id DESC"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[1], float(row[2]), row[3:]) for row in cursor.fetchall()]


def _owner_idf(spec: FullTextSpec, terms: list[str], where: Where) -> dict[str, float]:
    """{term: BM25 idf} among the owner's rows (counted as on SQLite: termstats)."""
    mine = owner_terms(spec, where.owner_id)
    counts = {term: mine.frequency(term) for term in terms}
    total = max(mine.rows, *counts.values(), 0)
    return {term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in counts.items()}


# Postings (rows x terms) of the owner's one OR query may score (about 2 us each on
# SQLite): the keyword stage should finish while the query is embedded (~4.5 ms), and a
# user whose items link to turns runs two of them (docs/decisions.md).
OR_BUDGET = 2000
# SQLite: a word held by more rows than this (of all owners) is never searched: scanning
# its postings would cost more than ~60 ms. Only a flood by other users reaches it.
COST_CAP = 30_000
# Near-duplicate lookup on every write: a duplicate shares the rarest words of the text.
ANY_TERM_BUDGET = 400
DF_SECONDS = 30.0  # how long a term's document count is reused (a growing corpus)
_df_cache: dict[tuple[str, str], tuple[int, float]] = {}
_df_lock = threading.Lock()


def _document_frequencies(spec: FullTextSpec, terms: list[str]) -> dict[str, int]:
    """{term: rows of all owners holding it} (SQLite's FTS5 counts), one query for those
    not counted in the last DF_SECONDS."""
    now = time.monotonic()
    stems = {term: stem(term) for term in terms}
    with _df_lock:
        cached = {t: _df_cache.get((spec.fts, s)) for t, s in stems.items()}
    counts = {t: hit[0] for t, hit in cached.items() if hit and hit[1] > now}
    missing = list(dict.fromkeys(s for t, s in stems.items() if t not in counts))
    if not missing:
        return counts
    marks = ", ".join(["%s"] * len(missing))
    sql = f"SELECT term, doc FROM {vocab_table(spec)} WHERE term IN ({marks})"
    with connection.cursor() as cursor:
        cursor.execute(sql, missing)
        found = {term: int(doc) for term, doc in cursor.fetchall()}
    with _df_lock:
        if len(_df_cache) > 50_000:
            _df_cache.clear()
        for key in missing:
            _df_cache[(spec.fts, key)] = (found.get(key, 0), now + DF_SECONDS)
    return {t: counts[t] if t in counts else found.get(s, 0) for t, s in stems.items()}


def term_weights(spec: FullTextSpec, terms: list[str], where: Where) -> dict[str, float]:
    """{stem: idf} of the query's terms among the owner's rows."""
    if not terms:
        return {}
    return {stem(term): w for term, w in _owner_idf(spec, terms, where).items()}


def _within_budget(terms: list[str], counts: dict[str, int], budget: int) -> list[str]:
    """The rarest terms whose postings fit `budget`; none if even the rarest is in a
    huge share of rows (such a term barely ranks anything; the vector stage answers).
    """
    if sum(counts.values()) <= budget:
        return terms
    if min(counts.values()) > 3 * budget:
        return []
    kept: set[str] = set()
    total = 0
    for term in sorted(terms, key=lambda t: counts[t]):
        if kept and total + counts[term] > budget:
            break
        kept.add(term)
        total += counts[term]
    return [t for t in terms if t in kept]


def clear_caches() -> None:
    with _df_lock:
        _df_cache.clear()
    termstats.clear_cache()
