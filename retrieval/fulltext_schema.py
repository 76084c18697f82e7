"""Full-text index DDL per database backend, used by the migrations of the apps that
declare a searchable corpus (`retrieval.corpus`).

SQLite: an external-content FTS5 table (porter unicode61) kept in sync by triggers, so
every write path (ORM, admin, bulk updates, raw deletes) updates it.
PostgreSQL: a stored generated tsvector column with a GIN index.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import migrations


@dataclass(frozen=True)
class FullTextSpec:
    table: str  # the model's table
    fts: str  # SQLite FTS5 table name
    columns: tuple[str, ...]  # indexed columns, most important first
    weights: tuple[str, ...]  # PostgreSQL weight letter per column
    bm25: tuple[float, ...] = ()  # SQLite bm25() weight per column (empty: all 1.0)

    def bm25_weights(self) -> tuple[float, ...]:
        return self.bm25 or tuple(1.0 for _ in self.columns)


def _sqlite_triggers(spec: FullTextSpec) -> dict[str, str]:
    cols = ", ".join(spec.columns)
    new = ", ".join(f"new.{c}" for c in spec.columns)
    old = ", ".join(f"old.{c}" for c in spec.columns)
    delete = f"INSERT INTO {spec.fts}({spec.fts}, rowid, {cols}) VALUES ('delete', old.id, {old});"
    insert = f"INSERT INTO {spec.fts}(rowid, {cols}) VALUES (new.id, {new});"
    return {
        f"{spec.fts}_ai": f"AFTER INSERT ON {spec.table} BEGIN {insert} END",
        f"{spec.fts}_ad": f"AFTER DELETE ON {spec.table} BEGIN {delete} END",
        f"{spec.fts}_au": f"AFTER UPDATE OF {cols} ON {spec.table} BEGIN {delete} {insert} END",
    }


def sqlite_create(spec: FullTextSpec) -> list[str]:
    cols = ", ".join(spec.columns)
    return [
        f"CREATE VIRTUAL TABLE {spec.fts} USING fts5({cols}, content='{spec.table}', "
        f"content_rowid='id', tokenize='porter unicode61')",
        *(f"CREATE TRIGGER {name} {body}" for name, body in _sqlite_triggers(spec).items()),
        f"INSERT INTO {spec.fts}({spec.fts}) VALUES ('rebuild')",
    ]


def sqlite_ensure(spec: FullTextSpec, connection) -> bool:
    """Recreate triggers a table rebuild dropped (SQLite ALTERs copy the table and lose
    its triggers); rebuild the index when any was missing. True when something was fixed.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
        existing = {row[0] for row in cursor.fetchall()}
        if spec.table not in existing or spec.fts not in existing:
            return False  # not migrated this far yet: the migration creates everything
        missing = {n: b for n, b in _sqlite_triggers(spec).items() if n not in existing}
        for name, body in missing.items():
            cursor.execute(f"CREATE TRIGGER {name} {body}")
        if missing:
            cursor.execute(f"INSERT INTO {spec.fts}({spec.fts}) VALUES ('rebuild')")
    return bool(missing)


def sqlite_drop(spec: FullTextSpec) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {spec.fts}_{s}" for s in ("ai", "ad", "au")] + [
        f"DROP TABLE IF EXISTS {spec.fts}"
    ]


def postgres_create(spec: FullTextSpec) -> list[str]:
    parts = " || ".join(
        f"setweight(to_tsvector('english', coalesce({c}, '')), '{w}')"
        for c, w in zip(spec.columns, spec.weights, strict=True)
    )
    return [
        f"ALTER TABLE {spec.table} ADD COLUMN search_tsv tsvector "
        f"GENERATED ALWAYS AS ({parts}) STORED",
        f"CREATE INDEX {spec.table}_tsv ON {spec.table} USING GIN (search_tsv)",
    ]


def postgres_drop(spec: FullTextSpec) -> list[str]:
    return [
        f"DROP INDEX IF EXISTS {spec.table}_tsv",
        f"ALTER TABLE {spec.table} DROP COLUMN IF EXISTS search_tsv",
    ]


def postgres_search_first(spec: FullTextSpec) -> list[str]:
    """The GIN index without its pending list: with `fastupdate` (PostgreSQL's default)
    new rows wait in an unsorted list that every search reads through until a vacuum
    merges it; 10,000 freshly written rows made each keyword search 3.5x slower. Each
    write now updates the index itself (a little more work per write, none per search)."""
    return [
        f"ALTER INDEX {spec.table}_tsv SET (fastupdate = off)",
        f"SELECT gin_clean_pending_list('{spec.table}_tsv'::regclass)",
    ]


def postgres_search_reset(spec: FullTextSpec) -> list[str]:
    return [f"ALTER INDEX {spec.table}_tsv RESET (fastupdate)"]


Statements = Callable[[FullTextSpec], list[str]]


def _per_vendor(
    spec: FullTextSpec, forward: dict[str, Statements], backward: dict[str, Statements]
) -> list[migrations.RunPython]:
    """A migration step running the statements of the database's vendor (none if absent)."""

    def run(statements: dict[str, Statements]) -> Callable:
        def apply(apps, schema_editor) -> None:
            build = statements.get(schema_editor.connection.vendor)
            for sql in build(spec) if build else []:
                schema_editor.execute(sql)

        return apply

    return [migrations.RunPython(run(forward), run(backward))]


def operations(spec: FullTextSpec) -> list[migrations.RunPython]:
    return _per_vendor(
        spec,
        {"sqlite": sqlite_create, "postgresql": postgres_create},
        {"sqlite": sqlite_drop, "postgresql": postgres_drop},
    )


def search_first_operations(spec: FullTextSpec) -> list[migrations.RunPython]:
    return _per_vendor(
        spec, {"postgresql": postgres_search_first}, {"postgresql": postgres_search_reset}
    )


def replace_operations(old: FullTextSpec, new: FullTextSpec) -> list[migrations.RunPython]:
    """Swap one full-text definition of a table for another (both directions)."""
    builders = {
        "sqlite": (sqlite_drop, sqlite_create),
        "postgresql": (postgres_drop, postgres_create),
    }

    def swap(schema_editor, drop: FullTextSpec, create: FullTextSpec) -> None:
        pair = builders.get(schema_editor.connection.vendor)
        if pair:
            for sql in pair[0](drop) + pair[1](create):
                schema_editor.execute(sql)

    return [
        migrations.RunPython(
            lambda apps, editor: swap(editor, old, new),
            lambda apps, editor: swap(editor, new, old),
        )
    ]


def vocab_table(spec: FullTextSpec) -> str:
    """SQLite: the fts5vocab table giving each indexed term's document count."""
    return f"{spec.fts}_vocab"


def _vocab_create(spec: FullTextSpec) -> list[str]:
    return [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab_table(spec)} USING fts5vocab({spec.fts}, 'row')"
    ]


def _vocab_drop(spec: FullTextSpec) -> list[str]:
    return [f"DROP TABLE IF EXISTS {vocab_table(spec)}"]


def vocab_operations(spec: FullTextSpec) -> list[migrations.RunPython]:
    return _per_vendor(spec, {"sqlite": _vocab_create}, {"sqlite": _vocab_drop})
