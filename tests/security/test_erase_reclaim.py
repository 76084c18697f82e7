"""memory_reclaim and memory_erase_user --vacuum: VACUUM FULL (PostgreSQL) or VACUUM
(SQLite) of the tables holding memory. The bytes themselves: test_erase_bytes*.py."""

import threading
import time
from io import StringIO

import psycopg
import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django_q.models import OrmQ, Task

from memory import services
from memory.models import KnowledgeItem
from privacy.reclaim import CONTENT_MODELS, reclaim_plan, reclaim_start, relation_reclaim
from privacy.services import _scope, memory_erase_user

# VACUUM cannot run inside a transaction, and the usual test wraps one around everything.
pytestmark = pytest.mark.django_db(transaction=True)
# Another test worker's transaction may be older than a reclaim here: wait for it to end.
WAIT = "600"


def test_without_yes_it_only_lists_what_it_would_rewrite():
    out = StringIO()
    call_command("memory_reclaim", stdout=out)
    shown = out.getvalue()
    assert "Nothing was done: add --yes" in shown
    for relation in reclaim_plan():
        assert f"  {relation} (" in shown


def test_with_yes_it_rewrites_each_table_and_says_so():
    out = StringIO()
    call_command("memory_reclaim", "--yes", "--wait", WAIT, stdout=out)
    shown = out.getvalue()
    for relation in reclaim_plan():
        assert f"  {relation} ... " in shown
    assert shown.count(" -> ") == len(reclaim_plan())
    assert "Done:" in shown


def test_the_plan_covers_every_table_an_erase_deletes_from(alice):
    erased = {queryset.model for queryset in _scope(alice).values()}
    assert erased | {OrmQ, Task, LogEntry} <= set(CONTENT_MODELS)
    if connection.vendor == "postgresql":
        assert reclaim_plan()[-1] == "pg_statistic"  # analyzed tables first, then their stats
        assert set(reclaim_plan()) >= {m._meta.db_table for m in CONTENT_MODELS}


def test_it_refuses_to_run_inside_a_transaction():
    with transaction.atomic(), pytest.raises(TransactionManagementError, match="VACUUM"):
        relation_reclaim(reclaim_plan()[0])
    with pytest.raises(ValueError):
        relation_reclaim("auth_user")


def test_erase_user_with_vacuum_erases_then_reclaims(alice, bob):
    services.memory_create(user=alice, content="Alice keeps bees on the roof")
    services.memory_create(user=bob, content="Bob keeps chickens in the yard")
    out = StringIO()
    call_command("memory_erase_user", "--user", "alice", "--vacuum", stdout=out)
    assert "Would then reclaim the space" in out.getvalue()
    assert "Done:" not in out.getvalue()
    call_command(
        "memory_erase_user", "--user", "alice", "--yes", "--vacuum", "--wait", WAIT, stdout=out
    )
    shown = out.getvalue()
    assert shown.index("Erased the memory of alice") < shown.index("Done:")
    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert KnowledgeItem.objects.for_user(bob).count() == 1


def test_a_table_the_server_skips_fails_the_command_by_name():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL permissions (this run uses SQLite)")
    out, err = StringIO(), StringIO()
    with connection.cursor() as cursor:
        cursor.execute("SET ROLE pg_monitor")  # owns neither the tables nor the database
    try:
        with pytest.raises(CommandError, match="Not reclaimed: memory_knowledgeitem, "):
            call_command("memory_reclaim", "--yes", "--wait", "0", stdout=out, stderr=err)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    assert 'skipping "memory_knowledgeitem"' in err.getvalue()
    assert "Done:" not in out.getvalue()


def test_it_waits_for_a_transaction_older_than_the_reclaim_and_names_it(alice):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL transaction horizons (this run uses SQLite)")
    services.memory_create(user=alice, content="Alice keeps bees on the roof")
    memory_erase_user(user=alice)
    older = psycopg.connect(**connection.get_connection_params())
    ends = threading.Timer(1.0, older.rollback)
    try:
        older.execute("SELECT pg_current_xact_id()")  # a transaction that began before
        err = StringIO()
        with pytest.raises(CommandError, match="Not reclaimed: memory_knowledgeitem, "):
            call_command("memory_reclaim", "--yes", "--wait", "0", stdout=StringIO(), stderr=err)
        pid = older.info.backend_pid
        assert "rows erased before the reclaim kept for: " in err.getvalue()
        assert f"pid {pid} ({connection.settings_dict['NAME']}, " in err.getvalue()
        ends.start()  # it ends while the next reclaim waits
        out = StringIO()
        call_command("memory_reclaim", "--yes", "--wait", WAIT, stdout=out)
        assert "Done:" in out.getvalue()
    finally:
        ends.cancel()
        older.close()


def test_statistics_wait_for_transactions_older_than_the_analyzes_of_this_reclaim():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL transaction horizons (this run uses SQLite)")
    mark, until = reclaim_start(), time.monotonic() + float(WAIT)
    for relation in reclaim_plan()[:-1]:  # each ANALYZE replaces rows of pg_statistic
        assert relation_reclaim(relation, mark=mark, until=until).warning == ""
    during = psycopg.connect(**connection.get_connection_params())
    try:
        during.execute("SELECT pg_current_xact_id()")  # began after the mark, before the stats
        done = relation_reclaim("pg_statistic", mark=mark)
        assert (
            f"pid {during.info.backend_pid} ({connection.settings_dict['NAME']}, " in done.warning
        )
    finally:
        during.close()
    assert relation_reclaim("pg_statistic", mark=mark, until=until).warning == ""


@pytest.mark.skipif(connection.vendor != "sqlite", reason="FTS5 segments are SQLite's")
def test_on_sqlite_deleted_rows_leave_the_full_text_segments(alice):
    """A plain delete (an account removed by an admin, a benchmark's users) leaves the
    words in FTS5 segments until they are merged; reclaim merges them."""
    marker = "zzqvexmarkerword"
    with connection.cursor() as cursor:
        # No merge on the way: FTS5 merges segments by itself (automerge, and a "crisis"
        # merge once a level holds 16), at points that depend on what else the table
        # holds; a merge of a row's segment with its delete drops the row's words early.
        for option, value in (("automerge", 0), ("crisismerge", 1000)):
            cursor.execute(
                "INSERT INTO memory_knowledge_fts(memory_knowledge_fts, rank) VALUES (%s, %s)",
                [option, value],
            )
    for n in range(30):
        services.memory_create(user=alice, content=f"Alice note {n} {marker} about things")
    KnowledgeItem.objects.filter(owner=alice).delete()

    def in_segments() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT block FROM memory_knowledge_fts_data")
            return any(marker.encode() in (row[0] or b"") for row in cursor.fetchall())

    assert in_segments()
    call_command("memory_reclaim", "--yes", "--wait", WAIT, stdout=StringIO())
    assert not in_segments()
