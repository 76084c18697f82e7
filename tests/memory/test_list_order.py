"""The memory list's default order (newest change first) is read from an index, in order,
rather than by sorting every active item of the user on each page."""

import pytest
from django.db import connection, transaction

from memory.selectors import memory_list
from memory.services import memory_create

pytestmark = pytest.mark.django_db


def _plan(queryset) -> str:
    if connection.vendor == "postgresql":
        # On a test table of a few rows the planner may prefer a sequential scan: what is
        # asked is whether the index can give the order, so scans and sorts are priced out
        # (for the rest of the test's own transaction).
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_sort = off")
            return queryset.explain()
    return queryset.explain()


def test_the_default_list_order_comes_from_an_index_without_a_sort(alice):
    for n in range(3):
        memory_create(user=alice, content=f"Alice's note number {n} about the garden")
    page = memory_list(user=alice)[:50]
    plan = _plan(page)
    assert "ki_recent" in plan
    assert "TEMP B-TREE" not in plan and "Sort" not in plan  # SQLite's and PostgreSQL's sort
    assert [i.content for i in page][0].endswith("2 about the garden")  # newest first
