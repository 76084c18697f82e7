"""An owner's index generation of each declared corpus: one counter per corpus, bumped in
the same transaction as every write, read before a search to know whether this process's
cached index is current (`retrieval.indexes`).

Raw SQL below always works on alias `t` and is always scoped by `t.owner_id`.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from retrieval import written
from retrieval.changelog import log_changes
from retrieval.corpus import Corpus, declared
from retrieval.models import IndexGeneration

GENERATIONS = IndexGeneration._meta.db_table


def generation_read(corpus: Corpus, owner_id: int) -> int:
    """The owner's current generation of `corpus` (0 before the first write)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {corpus.generation_field} FROM {GENERATIONS} WHERE user_id = %s",
            [owner_id],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def generations_read(owner_id: int) -> dict[str, int]:
    """The owner's current generation of every corpus, by name, in one statement."""
    corpora = declared()
    fields = ", ".join(c.generation_field for c in corpora)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {fields} FROM {GENERATIONS} WHERE user_id = %s", [owner_id])
        row = cursor.fetchone() or [0] * len(corpora)
    return {c.name: int(value or 0) for c, value in zip(corpora, row, strict=True)}


@dataclass(frozen=True)
class Snapshot:
    """What a search of one owner needs before its vector stage, read in one statement."""

    generations: dict[str, int]  # corpus name -> the owner's current generation
    sourced: frozenset[str]  # corpora where some row of the owner links to its source turn


def snapshot(owner_id: int) -> Snapshot:
    """The owner's generation of every corpus, and which corpora hold rows learned from a
    turn (recall searches the turns for those only)."""
    corpora = declared()
    linked = [c for c in corpora if c.source_column]
    columns = [
        f"(SELECT {c.generation_field} FROM {GENERATIONS} WHERE user_id = %s)" for c in corpora
    ] + [
        f"EXISTS (SELECT 1 FROM {c.table} t WHERE t.owner_id = %s "
        f"AND {c.source_column} IS NOT NULL)"
        for c in linked
    ]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns)}", [owner_id] * len(columns))
        row = cursor.fetchone()
    values, flags = row[: len(corpora)], row[len(corpora) :]
    generations = {c.name: int(value or 0) for c, value in zip(corpora, values, strict=True)}
    return Snapshot(generations, frozenset(c.name for c, f in zip(linked, flags, strict=True) if f))


def _increment(field: str, owner_id: int) -> int | None:
    """+1 and the new value in one statement; None when the owner has no row yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {GENERATIONS} SET {field} = {field} + 1 WHERE user_id = %s RETURNING {field}",
            [owner_id],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else None


def generation_bump(corpus: Corpus, owner_id: int, changed: Iterable[int] | None = None) -> int:
    """+1 inside the caller's transaction; returns the new value (the row stays locked).

    `changed` (the ids the write touched) goes to the change log, so other processes
    catch up on just those rows; None means "anything may have changed": every process
    behind rebuilds that index.
    """
    generation = _increment(corpus.generation_field, owner_id)
    if generation is None:  # the owner's first write
        IndexGeneration.objects.get_or_create(user_id=owner_id)
        generation = _increment(corpus.generation_field, owner_id)
    changed = None if changed is None else list(changed)
    if changed is not None:
        log_changes(corpus.name, owner_id, generation, changed)
    written.note(corpus.table, owner_id, None if changed is None else len(changed))
    return generation
