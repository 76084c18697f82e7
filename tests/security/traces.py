"""Where erased text could still be found: the full-text index (queried directly), rows
pointing at an erased item, and the ids announced to the vector index."""

from typing import Any

import pytest
from django.apps import apps
from django.db import connection

from conversations.corpus import TURN_FTS
from memory.corpus import KNOWLEDGE_FTS
from memory.models import KnowledgeItem
from retrieval import events


def fulltext_holds(word: str) -> bool:
    """Whether either full-text index still knows `word` (a lower-case marker).

    SQLite: a MATCH, and the index's own vocabulary (fts5vocab), which lists every term
    still stored in a segment. PostgreSQL: the tsvector columns.
    """
    with connection.cursor() as cursor:
        for spec in (KNOWLEDGE_FTS, TURN_FTS):
            if connection.vendor == "sqlite":
                cursor.execute(
                    f"SELECT rowid FROM {spec.fts} WHERE {spec.fts} MATCH %s", [f'"{word}"']
                )
                if cursor.fetchall():
                    return True
                cursor.execute(
                    f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{spec.fts}_v "
                    f"USING fts5vocab(main, {spec.fts}, 'instance')"
                )
                cursor.execute(
                    f"SELECT count(*) FROM temp.{spec.fts}_v WHERE term LIKE %s", [word[:8] + "%"]
                )
            else:
                cursor.execute(
                    f"SELECT count(*) FROM {spec.table} "
                    "WHERE search_tsv @@ plainto_tsquery('english', %s)",
                    [word],
                )
            if cursor.fetchone()[0]:
                return True
    return False


def rows_pointing_at(item_ids: set[int]) -> list[str]:
    """Rows of any model with a foreign key to one of these items (e.g. a stored
    embedding table of the vector index), plus the items themselves."""
    found = [f"KnowledgeItem {pk}" for pk in KnowledgeItem.objects.filter(pk__in=item_ids)
             .values_list("pk", flat=True)]  # fmt: skip
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if getattr(field, "related_model", None) is KnowledgeItem and field.concrete:
                hits = model._default_manager.filter(**{f"{field.name}__in": item_ids})
                found += [f"{model.__name__}.{field.name} {row.pk}" for row in hits]
    return found


@pytest.fixture
def announced(monkeypatch) -> list[tuple[int, list[int], list[int], int]]:
    """Every announcement of changed items, as the vector index of any process hears it."""
    heard: list[Any] = []
    monkeypatch.setattr(
        events,
        "_listeners",
        [*events._listeners, lambda c, *a: c.name == "items" and heard.append(a)],
    )
    return heard


def removed_for(heard: list[Any], owner_id: int) -> set[int]:
    return {pk for owner, _, removed, _ in heard if owner == owner_id for pk in removed}
