"""Typed filters: what a caller of retrieval's front door narrows a search with.

A caller names fields its corpus declared (`Corpus.fields`) and values; it never writes
SQL. `scoped` turns them into conditions on the corpus table (alias `t`) with their
parameters, always scoped to one owner; a field the corpus did not declare is refused.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from retrieval.corpus import Corpus
from retrieval.keyword import Where


@dataclass(frozen=True)
class Filter:
    field: str
    op: str  # "=", "in", ">=", "<=", "set" (IS NOT NULL), "in rows" (a Rows statement)
    value: Any = None


@dataclass(frozen=True)
class Rows:
    """A statement selecting one column of rows (the ORM's `sql_with_params()` of a
    `values("pk")` queryset): conditions retrieval does not know by name (JSON metadata,
    negations) are kept by the field being among its rows. The statement must itself be
    scoped to the owner (`for_user`); the owner's own condition still applies."""

    sql: str
    params: tuple


@dataclass(frozen=True)
class AnyOf:
    """Rows that pass at least one of `options`."""

    options: tuple[Filter, ...]


Filters = Sequence[Filter | AnyOf]


def eq(field: str, value: Any) -> Filter:
    return Filter(field, "=", value)


def among(field: str, values: Iterable[Any]) -> Filter:
    """The field holds one of `values` (none: no row passes)."""
    return Filter(field, "in", tuple(values))


def since(field: str, moment: Any) -> Filter:
    return Filter(field, ">=", moment)


def until(field: str, moment: Any) -> Filter:
    return Filter(field, "<=", moment)


def is_set(field: str) -> Filter:
    return Filter(field, "set")


def within(field: str, rows: Rows) -> Filter:
    """The field holds a value `rows` selects."""
    return Filter(field, "in rows", rows)


def any_of(*options: Filter) -> AnyOf:
    return AnyOf(tuple(options))


def _condition(corpus: Corpus, f: Filter) -> tuple[str, list]:
    column = corpus.fields.get(f.field)
    if column is None:
        raise ValueError(
            f"corpus {corpus.name} has no filter field {f.field!r} "
            f"(it declares: {', '.join(sorted(corpus.fields))})"
        )
    if f.op == "in":
        if not f.value:
            return "1 = 0", []
        return f"t.{column} IN ({', '.join(['%s'] * len(f.value))})", list(f.value)
    if f.op == "set":
        return f"t.{column} IS NOT NULL", []
    if f.op == "in rows" and isinstance(f.value, Rows):
        return f"t.{column} IN ({f.value.sql})", list(f.value.params)
    if f.op in ("=", ">=", "<="):
        return f"t.{column} {f.op} %s", [_param(f.value)]
    raise ValueError(f"unknown filter operation {f.op!r}")


def _param(value: Any) -> Any:
    """A moment as the database stores it: SQLite compares datetimes as text, so a moment
    in the person's zone ("06:09+01:00") must become the UTC text the rows hold ("05:09"),
    or a window is off by the zone's offset."""
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def scoped(corpus: Corpus, owner_id: int, filters: Filters = ()) -> Where:
    """SQL conditions for the owner's rows under `filters` (not yet the active-row ones)."""
    where = Where(owner_id=owner_id).add(f"t.{corpus.owner} = %s", owner_id)
    return _with_filters(corpus, where, filters)


def narrowed(corpus: Corpus, where: Where, filters: Filters) -> Where:
    """A copy of `where` (already scoped to its owner) with `filters` added."""
    if where.owner_id is None:
        raise ValueError("only conditions scoped to one owner are narrowed")
    copy = Where(list(where.clauses), list(where.params), where.owner_id)
    return _with_filters(corpus, copy, filters)


def _with_filters(corpus: Corpus, where: Where, filters: Filters) -> Where:
    for f in filters:
        if isinstance(f, AnyOf):
            parts = [_condition(corpus, option) for option in f.options]
            if not parts:
                continue
            where.add(
                f"({' OR '.join(sql for sql, _ in parts)})", *[p for _, ps in parts for p in ps]
            )
        else:
            sql, params = _condition(corpus, f)
            where.add(sql, *params)
    return where
