"""Physically reclaim the space of erased rows, so their bytes leave the data files.

A delete (or the update that redacts a turn) leaves the old row on its page. SQLite with
`secure_delete` overwrites it at once (see `storage`); PostgreSQL keeps it as a dead tuple
until vacuum reuses the space, and a plain VACUUM frees the space without overwriting it.
`VACUUM FULL` rewrites a table into new files (with its TOAST table and indexes) and the
old files are removed. It takes an ACCESS EXCLUSIVE lock for the whole rewrite, so it is
an operator's action (`manage.py memory_reclaim`), never part of an erase.

Planner statistics are a copy too: ANALYZE samples column values (`pg_statistic` keeps
them as most-common values and histogram bounds), so each table is analyzed again after
its rewrite and `pg_statistic` itself is rewritten last (its replaced rows died during
the reclaim: what it waits for is counted from then).

VACUUM FULL keeps every row some transaction may still need: a writing transaction
anywhere on the server that began before the erase committed (every snapshot taken since
counts it as running, even in other databases), a snapshot held open in this database,
a replication slot. So
`relation_reclaim` first waits (until a deadline) for whatever began before
`reclaim_start()` and, if something is still there, names it in the result's warning.

On SQLite, VACUUM rebuilds the whole file (secure_delete has already zeroed the rows; this
only drops free pages) and a checkpoint empties the WAL.
"""

import time
from dataclasses import dataclass

from django.contrib.admin.models import LogEntry
from django.db import connection
from django.db.transaction import TransactionManagementError
from django_q.models import OrmQ, Task

from conversations.models import Session, ToolCall, Turn
from discovery.models import Finding
from graph.models import Alias, Entity, Mention, Relation
from learning.models import LLMCounter, ProfileCache, ReconciledPair
from memory.models import ImportJob, ImportLink, ImportPart, KnowledgeItem, MemoryVersion
from privacy import storage
from skills.models import Skill, SkillContribution, SkillWord
from webhooks.models import Attempt as WebhookAttempt
from webhooks.models import Endpoint as WebhookEndpoint
from webhooks.models import Event as WebhookEvent

# Every table an erase deletes from or redacts in (tests check it covers memory_erase_user).
CONTENT_MODELS = (
    KnowledgeItem,
    MemoryVersion,  # the earlier texts of items
    ImportPart,  # the lines of a large import until it ends
    ImportLink,
    ImportJob,
    Turn,
    Session,
    ToolCall,
    Finding,
    Entity,  # a person's entities, their names and what links them to items
    Alias,
    Mention,
    Relation,
    Skill,  # the shared skills a person's erase deletes or scrubs again
    SkillContribution,
    SkillWord,  # keyed digests of the words a person taught a type
    ProfileCache,
    ReconciledPair,
    LLMCounter,
    OrmQ,
    Task,
    LogEntry,
    WebhookEvent,  # the outbox: item data until delivered and kept, redacted on erase
    WebhookEndpoint,
    WebhookAttempt,
)
STATISTICS = "pg_statistic"
SQLITE_FILE = "database file"


@dataclass
class Reclaimed:
    relation: str
    bytes_before: int
    bytes_after: int
    seconds: float
    warning: str = ""  # why bytes may remain (a table the server skipped, a busy checkpoint)


def reclaim_plan() -> list[str]:
    """What `relation_reclaim` will rewrite, in order."""
    if connection.vendor == "postgresql":
        return [model._meta.db_table for model in CONTENT_MODELS] + [STATISTICS]
    if connection.vendor == "sqlite":
        return [SQLITE_FILE]
    return []


def relation_size(relation: str) -> int:
    """Bytes on disk: the table with its TOAST table and indexes (SQLite: the file)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA page_count")
            pages = cursor.fetchone()[0]
            cursor.execute("PRAGMA page_size")
            return pages * cursor.fetchone()[0]
        cursor.execute("SELECT pg_total_relation_size(%s::regclass)", [relation])
        return cursor.fetchone()[0]


def reclaim_start() -> str:
    """Mark the start of a reclaim: rows erased before it are the ones to remove.

    PostgreSQL: a new transaction id (xid8, as text), above every one assigned so far;
    "" elsewhere.
    """
    if connection.vendor != "postgresql":
        return ""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text")
        return cursor.fetchone()[0]


# Sessions whose transaction (anywhere) or snapshot (in this database, or a standby's via
# its WAL sender) is older than the mark. Other roles' sessions show no xids unless this
# role may read all statistics (pg_read_all_stats): _OLD_XACTS still notices their
# writing transactions, not a snapshot they only read from.
_OLD_SESSIONS = """
    SELECT pid, coalesce(datname, ''), coalesce(application_name, ''), state
    FROM pg_stat_activity
    WHERE pid <> pg_backend_pid()
      AND (age(backend_xid) > age(xid(%(mark)s::xid8))
           OR (age(backend_xmin) > age(xid(%(mark)s::xid8))
               AND (datname = current_database() OR backend_type = 'walsender')))
"""
_OLD_SLOTS = """
    SELECT slot_name FROM pg_replication_slots
    WHERE age(xmin) > age(xid(%(mark)s::xid8)) OR age(catalog_xmin) > age(xid(%(mark)s::xid8))
"""
_OLD_XACTS = "SELECT pg_snapshot_xmin(pg_current_snapshot()) < %(mark)s::xid8"


def reclaim_blockers(mark: str) -> list[str]:
    """What can still see rows erased before `mark` (from `reclaim_start`), so VACUUM FULL
    would have to keep them: older transactions and snapshots, replication slots."""
    if connection.vendor != "postgresql" or not mark:
        return []
    found = []
    with connection.cursor() as cursor:
        cursor.execute(_OLD_SESSIONS, {"mark": mark})
        for pid, database, application, state in cursor.fetchall():
            found.append(f"pid {pid} ({database or 'no database'}, {application or '?'}, {state})")
        cursor.execute(_OLD_SLOTS, {"mark": mark})
        found += [f"replication slot {name}" for (name,) in cursor.fetchall()]
        cursor.execute(_OLD_XACTS, {"mark": mark})
        if cursor.fetchone()[0] and not found:  # a prepared transaction, or not ours to see
            found.append("a transaction this role cannot see (prepared, or another role's)")
    return found


def relation_reclaim(relation: str, *, mark: str = "", until: float = 0.0) -> Reclaimed:
    """Rewrite one relation of `reclaim_plan()` (or the SQLite file) without dead rows.

    Rows erased before `mark` (from `reclaim_start`) go unless something older can still
    see them: it waits for that until `until` (a `time.monotonic()` deadline), then runs
    anyway and names it in the warning. Must run outside any transaction (VACUUM cannot
    run inside one). Locks the table exclusively while it runs, and while it waits for
    the lock behind open transactions on it.
    """
    if connection.in_atomic_block:
        raise TransactionManagementError("VACUUM cannot run inside a transaction (atomic block).")
    if relation not in reclaim_plan():
        raise ValueError(f"{relation!r} is not in the reclaim plan.")
    if relation == STATISTICS and mark:
        mark = reclaim_start()  # its old rows died in this reclaim's ANALYZEs, just now
    before, started = relation_size(relation), time.monotonic()
    blockers = reclaim_blockers(mark)
    while blockers and time.monotonic() < until:
        time.sleep(0.5)
        blockers = reclaim_blockers(mark)
    if connection.vendor == "postgresql":
        warnings = [_vacuum_full(relation)]
    else:
        warnings = [_sqlite_vacuum()]
    if blockers:
        warnings.append(f"rows erased before the reclaim kept for: {', '.join(blockers)}")
    seconds = time.monotonic() - started
    warning = "; ".join(w for w in warnings if w)
    return Reclaimed(relation, before, relation_size(relation), seconds, warning)


def _vacuum_full(relation: str) -> str:
    """VACUUM FULL (and ANALYZE a content table); returns the server's warning when it
    skipped the table (a role that neither owns it nor the database gets a warning,
    not an error)."""
    analyze = "" if relation == STATISTICS else ", ANALYZE"
    warnings: list[str] = []

    def heard(diagnostic) -> None:
        if diagnostic.severity in ("WARNING", "ERROR"):
            warnings.append(diagnostic.message_primary or "")

    connection.ensure_connection()
    raw = connection.connection
    raw.add_notice_handler(heard)
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (FULL{analyze}) {connection.ops.quote_name(relation)}")
    finally:
        raw.remove_notice_handler(heard)
    return "; ".join(warnings)


def _sqlite_vacuum() -> str:
    storage.fulltext_optimize()  # deleted rows' entries leave their segments first
    with connection.cursor() as cursor:
        cursor.execute("VACUUM")
    checkpoint = storage.wal_checkpoint()
    if checkpoint and checkpoint[0]:
        return "the WAL checkpoint was busy (a reader); the next checkpoint empties it"
    return ""
