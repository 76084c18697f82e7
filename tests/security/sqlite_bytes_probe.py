"""Run as a script (`python -m tests.security.sqlite_bytes_probe`) with GAIA_DATA_DIR set
to an empty directory, or one holding a freshly migrated gaia.sqlite3 (tests/migrated.py):
a real file-backed SQLite database with the production settings.

It stores three users' memory with a marker word each, erases one of alice's items and
carol's whole memory through the services, then prints JSON: the PRAGMAs of its own
connection and, per marker, whether its bytes are in the database file and the WAL.
With `--item-only` it erases alice's item and nothing else (a whole-memory erase merges
the full-text index too, which would hide a single erase that left words behind).
"""

import json
import os
import sys
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gaia_site.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402
from django_q.models import Task  # noqa: E402

from conversations.services.recording import tool_call_record, turn_append  # noqa: E402
from memory import services  # noqa: E402
from privacy import services as privacy_services  # noqa: E402
from privacy.services import memory_erase_user  # noqa: E402

MARKERS = {"item": "quokkaitem", "carol": "quokkacarol", "bob": "quokkabob"}
FILLER = " ".join(f"word{n}" for n in range(40))


def remember(user, marker: str, n: int = 3, whole: bool = True) -> list:
    """Items learned from a turn carrying `marker`, which got a reply; with `whole`, the
    session name and a tool call error carry it too (a whole-memory erase must remove
    those as well)."""
    turn = turn_append(
        user=user,
        session_id=f"s-{marker}" if whole else "chat",
        role="user",
        content=f"I said {marker} {FILLER}",
    )
    # The reply keeps the end of that turn as its context (row, full-text, vector).
    turn_append(
        user=user,
        session_id=f"s-{marker}" if whole else "chat",
        role="assistant",
        content=f"Noted, thank you {FILLER}",
    )
    if whole:
        tool_call_record(user=user, tool_name="t", success=False, error=f"failed on {marker}")
    return [
        services.memory_create(
            user=user,
            content=f"Fact {i} about {marker} {FILLER}",
            entity=f"x:{marker}{i}",
            source_turn=turn,
            source="llm_extract",
        )
        for i in range(n)
    ]


def scan(path: Path) -> dict[str, bool]:
    data = path.read_bytes() if path.exists() else b""
    return {name: marker.encode() in data for name, marker in MARKERS.items()}


def main() -> None:
    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    alice, bob, carol = (users.create_user(n) for n in ("alice", "bob", "carol"))
    background = [{"content": f"Background note {n} {FILLER}"} for n in range(200)]
    services.memory_create_many(user=alice, items=background)  # rows around them: pages shared
    item = remember(alice, MARKERS["item"], n=1, whole=False)[0]
    remember(bob, MARKERS["bob"])
    remember(carol, MARKERS["carol"])
    session_pk = turn_append(user=carol, session_id="c2", role="user", content="hi").session_id
    Task.objects.create(  # a finished consolidation whose result quotes carol
        id="c" * 32,
        name="consolidate",
        func="learning.tasks.consolidate_session",
        args=(session_pk,),
        result={"summary": f"Talked about {MARKERS['carol']}"},
        started=timezone.now(),
        stopped=timezone.now(),
        success=True,
    )
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db = Path(settings.DATABASES["default"]["NAME"])
    before = scan(db)

    privacy_services.memory_erase(user=alice, item_id=item.pk)
    if "--item-only" not in sys.argv:
        memory_erase_user(user=carol)

    with connection.cursor() as cursor:
        pragmas = {}
        for name in ("secure_delete", "journal_mode", "mmap_size"):
            cursor.execute(f"PRAGMA {name}")
            pragmas[name] = cursor.fetchone()[0]
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pragmas["checkpoint"] = list(cursor.fetchone())
    connection.close()
    wal = db.with_name(db.name + "-wal")
    result = {"pragmas": pragmas, "before": before, "db": scan(db), "wal": scan(wal)}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
