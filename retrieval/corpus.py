"""The two searchable corpora (knowledge items, conversation turns) described once.

Raw SQL below always works on alias `t` and is always scoped by `t.owner_id`.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from retrieval import written
from retrieval.changelog import log_changes
from retrieval.fulltext_schema import KNOWLEDGE_FTS, TURN_FTS_CONTEXT, FullTextSpec
from retrieval.models import IndexGeneration


@dataclass(frozen=True)
class Corpus:
    name: str
    table: str
    active_sql: str  # rows search may return (forgotten/superseded items never)
    generation_field: str  # IndexGeneration column bumped when this corpus changes
    fts: FullTextSpec
    time_column: str  # when a row happened (a query naming a date looks there)
    speaker_column: str | None  # who said it (a query naming a speaker prefers theirs)


ITEMS = Corpus(
    name="items",
    table="memory_knowledgeitem",
    active_sql="t.forgotten_at IS NULL AND t.superseded_by_id IS NULL",
    generation_field="value",
    fts=KNOWLEDGE_FTS,
    time_column="t.created_at",
    speaker_column=None,
)
TURNS = Corpus(
    name="turns",
    table="conversations_turn",
    active_sql="1 = 1",
    generation_field="turn_value",
    fts=TURN_FTS_CONTEXT,
    time_column="t.timestamp",
    speaker_column="t.speaker",
)
CORPORA = {c.name: c for c in (ITEMS, TURNS)}


def generation_read(corpus: Corpus, owner_id: int) -> int:
    """The owner's current generation of `corpus` (0 before the first write)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {corpus.generation_field} FROM memory_indexgeneration WHERE user_id = %s",
            [owner_id],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _increment(field: str, owner_id: int) -> int | None:
    """+1 and the new value in one statement; None when the owner has no row yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE memory_indexgeneration SET {field} = {field} + 1 WHERE user_id = %s "
            f"RETURNING {field}",
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
