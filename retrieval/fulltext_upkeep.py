"""Upkeep of the declared corpora's full-text indexes: their SQLite triggers after every
migration, and merging their segments after an erase (privacy/storage.py)."""

from django.db import connection, connections

from retrieval.corpus import declared
from retrieval.fulltext_schema import FullTextSpec, sqlite_ensure


def current_specs() -> list[FullTextSpec]:
    """The definitions the latest migrations leave in place (what triggers must match):
    those of the declared corpora."""
    return [corpus.fts for corpus in declared()]


def ensure_after_migrate(using: str = "default", **kwargs) -> None:
    """post_migrate hook: keep the SQLite full-text triggers in place after any migration."""
    target = connections[using]
    if target.vendor == "sqlite":
        for spec in current_specs():
            sqlite_ensure(spec, target)


def fulltext_optimize() -> None:
    """Merge the SQLite full-text indexes so deleted entries leave their segments."""
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for spec in current_specs():
            cursor.execute(f"INSERT INTO {spec.fts}({spec.fts}) VALUES ('optimize')")
