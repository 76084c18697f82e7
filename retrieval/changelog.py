"""The per-user change log: which rows each generation of a corpus changed.

Written in the same transaction as the generation bump it belongs to, so a committed
generation always has its rows here. A process behind asks `changed_since`: the ids
changed after its generation, or None when the log cannot tell (a generation without
rows: compacted away, or a bump that changes "everything", like a rebuild or a bulk
load) and the index must be rebuilt.
"""

from django.db import connection

from retrieval.models import IndexChange

KEEP_GENERATIONS = 512  # a cache further behind than this rebuilds
COMPACT_EVERY = 64  # generations between two trims of one owner's log
CATCH_UP_MAX_ROWS = 5000  # more changed rows than this: a rebuild is about as cheap


def log_changes(corpus_name: str, owner_id: int, generation: int, ids: list[int]) -> None:
    """Record that `generation` changed `ids` (inside the bump's transaction)."""
    rows = sorted(set(ids)) or [0]
    IndexChange.objects.bulk_create(
        IndexChange(user_id=owner_id, corpus=corpus_name, generation=generation, row_id=row_id)
        for row_id in rows
    )
    if generation % COMPACT_EVERY == 0 and generation > KEEP_GENERATIONS:
        IndexChange.objects.filter(
            user_id=owner_id, corpus=corpus_name, generation__lte=generation - KEEP_GENERATIONS
        ).delete()


def changed_since(corpus_name: str, owner_id: int, since: int, until: int) -> list[int] | None:
    """Ids changed by generations since+1 .. until, or None if the log cannot say."""
    if until <= since:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generation, row_id FROM retrieval_indexchange "
            "WHERE user_id = %s AND corpus = %s AND generation > %s AND generation <= %s "
            "LIMIT %s",
            [owner_id, corpus_name, since, until, CATCH_UP_MAX_ROWS + 1],
        )
        rows = cursor.fetchall()
    if len(rows) > CATCH_UP_MAX_ROWS or len({g for g, _ in rows}) != until - since:
        return None
    return sorted({row_id for _, row_id in rows if row_id})
