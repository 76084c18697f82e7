"""PostgreSQL: after an erase, the erased text is still in the database's files (dead
tuples, index entries, planner statistics); after `memory_reclaim --yes` it is in none.

Reads every file of the test database's directory (heaps, TOAST tables, indexes, their
extra segments and forks, the catalogs) after a CHECKPOINT has written shared buffers
out. Needs the server's data directory on this machine and readable (tests run as root).
The WAL (pg_wal) is outside the claim: see docs/privacy.md. Task arguments and results are
pickled and base64-encoded (no marker shows), but their tables are rewritten too.
"""

import re
import secrets
from collections import defaultdict
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection

from accounts.services import user_settings_update
from conversations.services.recording import tool_call_record, turn_append
from discovery.services import finding_propose_many
from learning.models import ProfileCache
from memory import services
from privacy import services as privacy_services
from privacy.reclaim import CONTENT_MODELS
from privacy.services import memory_erase_user

# Committed rows: CHECKPOINT only writes what other sessions could see.
pytestmark = pytest.mark.django_db(transaction=True)

USER = "wombatzulu"  # alice's whole memory, erased
ITEM = "wombatitem"  # one of bob's items and the turn it came from, erased
KEPT = "wombatkept"  # bob's other memory, kept: the scan reads the current files
RELATION_FILE = re.compile(r"^(\d+)(?:_(?:fsm|vm|init))?(?:\.\d+)?$")


@pytest.fixture
def database_dir() -> Path:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: reads its data files (SQLite: test_erase_bytes.py)")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('data_directory')")
            data_dir = cursor.fetchone()[0]
            cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
            oid = cursor.fetchone()[0]
            cursor.execute("SELECT pg_relation_filepath('memory_knowledgeitem')")
            probe = Path(data_dir) / cursor.fetchone()[0]
            cursor.execute("CHECKPOINT")
    except DatabaseError as error:  # data_directory and CHECKPOINT need a superuser
        pytest.skip(f"needs a PostgreSQL superuser (or pg_checkpoint): {error}")
    try:
        probe.stat()
    except OSError as error:
        pytest.skip(
            f"the server's data files are not readable here ({error}): run the tests "
            "on the database host as root or as the server's system user"
        )
    return Path(data_dir) / "base" / str(oid)


@pytest.fixture
def uncompressed(database_dir):
    """Text, JSON and tsvector columns of the memory tables stored without compression
    (STORAGE EXTERNAL) while the test runs: a compressed copy of a marker would not show
    in a byte scan, so the scan could miss it."""
    tables = [model._meta.db_table for model in CONTENT_MODELS]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attstorage FROM pg_attribute "
            "WHERE attrelid = ANY(%s::regclass[]) AND attnum > 0 AND NOT attisdropped "
            "AND attstorage IN ('x', 'm')",
            [tables],
        )
        columns = cursor.fetchall()
    storage = {"x": "EXTENDED", "m": "MAIN"}
    _set_storage([(table, column, "EXTERNAL") for table, column, _ in columns])
    yield
    _set_storage([(table, column, storage[was]) for table, column, was in columns])


def _set_storage(columns: list[tuple[str, str, str]]) -> None:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table, column, mode in columns:
            cursor.execute(
                f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} SET STORAGE {mode}"
            )


def _relation_names() -> dict[str, str]:
    """File node -> relation name; a TOAST table is named after its table."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_filenode(c.oid), coalesce(t.relname || ' (toast)', c.relname) "
            "FROM pg_class c LEFT JOIN pg_class t ON t.reltoastrelid = c.oid "
            "WHERE pg_relation_filenode(c.oid) IS NOT NULL"
        )
        return {str(node): name for node, name in cursor.fetchall()}


def holders(directory: Path) -> dict[str, set[str]]:
    """Per marker, the relations (or other files) of the database whose bytes hold it."""
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")  # shared buffers to the files
    names = _relation_names()
    found: dict[str, set[str]] = defaultdict(set)
    for path in directory.iterdir():
        if not path.is_file():
            continue
        data = path.read_bytes()
        match = RELATION_FILE.match(path.name)
        name = names.get(match.group(1), path.name) if match else path.name
        for marker in (USER, ITEM, KEPT):
            if marker.encode() in data:
                found[marker].add(name)
    return found


def _remember(alice, bob) -> int:
    """Alice's memory everywhere it can go; bob's kept memory; returns the item to erase."""
    filler = " ".join(f"word{n}" for n in range(20))
    user_settings_update(user=alice, discovery_consent=True)
    turn = turn_append(
        user=alice, session_id=f"s-{USER}", role="user", content=f"I said {USER} {filler}"
    )
    services.memory_create(
        user=alice,
        content=f"Fact about {USER} {filler}",
        entity=f"x:{USER}",
        source_turn=turn,
        source="llm_extract",
    )
    # Over 2 kB: the text goes to the turn table's TOAST table.
    turn_append(
        user=alice,
        session_id="long",
        role="user",
        content=f"{USER} {secrets.token_hex(4000)} {USER}",
    )
    tool_call_record(user=alice, tool_name="web_search", success=False, error=f"No {USER} found")
    finding_propose_many(
        user=alice, findings=[{"scanner": "projects", "content": f"Has a project called {USER}"}]
    )
    ProfileCache.objects.create(owner=alice, generation=1, bullets=[f"Knows {USER}"])
    services.memory_create(user=bob, content=f"Fact about {KEPT} {filler}", entity=f"x:{KEPT}")
    source = turn_append(
        user=bob, session_id="chat", role="user", content=f"I said {ITEM} {filler}"
    )
    # The reply keeps the end of that turn as its context (row, full-text, vector).
    turn_append(user=bob, session_id="chat", role="assistant", content=f"Noted {filler}")
    item = services.memory_create(
        user=bob,
        content=f"Fact about {ITEM} {filler}",
        entity=f"x:{ITEM}",
        source_turn=source,
        source="llm_extract",
    )
    return item.pk


def test_erased_text_leaves_every_file_of_the_database_after_memory_reclaim(
    database_dir, uncompressed, alice, bob
):
    item_id = _remember(alice, bob)
    with connection.cursor() as cursor:  # as autovacuum would: stats sample the values
        for model in CONTENT_MODELS:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
    # Another session's transaction, begun before the erase: until it ends, no page
    # pruning may drop the old row versions the erase leaves (a busy server prunes them
    # at its own pace; here the bytes the reclaim must remove are surely there first).
    other = connection.copy()
    with other.cursor() as cursor:
        cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("SELECT count(*) FROM conversations_turn")
    privacy_services.memory_erase(user=bob, item_id=item_id)
    memory_erase_user(user=alice)

    # Erased and committed, gone from every answer, but the bytes are still on the pages.
    erased = holders(database_dir)
    assert {
        "memory_knowledgeitem",
        "memory_knowledgeitem_tsv",  # the full-text GIN index
        "conversations_turn",
        "conversations_turn (toast)",
        "conversations_turn_tsv",
        "conversations_session",
        "conversations_toolcall",
        "discovery_finding",
        "memory_profilecache",
        "pg_statistic",
    } <= erased[USER], erased
    # the item's row, and the old version of the turn it came from (now redacted)
    assert {"memory_knowledgeitem", "conversations_turn", "pg_statistic"} <= erased[ITEM], erased

    other.close()
    out = StringIO()
    # Another test worker's transaction may be older than the erase: wait for it to end.
    call_command("memory_reclaim", "--yes", "--wait", "600", stdout=out)

    after = holders(database_dir)
    assert after[USER] == set() and after[ITEM] == set(), (after, out.getvalue())
    assert "memory_knowledgeitem" in after[KEPT]  # the rewritten files were read
