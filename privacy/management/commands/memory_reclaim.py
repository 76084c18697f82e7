"""Rewrite the tables that hold memory so erased rows leave the database files."""

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from privacy.reclaim import reclaim_plan, reclaim_start, relation_reclaim, relation_size
from retrieval.snapshots import snapshots_erase_all

LOCKS = "each table is locked (no reads, no writes) while it is rewritten"
WAIT = 60  # seconds to wait for transactions older than the reclaim


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e5 else f"{count / 1e3:.0f} kB"


def _verb() -> str:
    return "VACUUM FULL" if connection.vendor == "postgresql" else "VACUUM"


def _locks() -> str:
    if connection.vendor == "sqlite":
        return "no other connection can write while the file is rebuilt"
    return LOCKS


def reclaim_printing(command: BaseCommand, *, wait: float = WAIT) -> None:
    """Run the whole reclaim plan, one line per table as it goes (also used by
    memory_erase_user --vacuum). Raises CommandError when bytes may remain."""
    plan, mark, until = reclaim_plan(), reclaim_start(), time.monotonic() + wait
    command.stdout.write(f"{_verb()} on {connection.vendor}, {len(plan)} step(s): {_locks()}.")
    incomplete = []
    for relation in plan:
        command.stdout.write(f"  {relation} ...", ending=" ")
        command.stdout.flush()
        done = relation_reclaim(relation, mark=mark, until=until)
        command.stdout.write(
            f"{_size(done.bytes_before)} -> {_size(done.bytes_after)} ({done.seconds:.1f} s)"
        )
        if done.warning:
            command.stderr.write(f"  {relation}: {done.warning}")
            incomplete.append(relation)
    if incomplete:
        raise CommandError(
            f"Not reclaimed: {', '.join(incomplete)}; erased bytes may remain there "
            "(run it as the owner of the database, or again once what is named has ended)."
        )
    people = snapshots_erase_all()  # rebuilt from what is left on the next recall
    command.stdout.write(f"  index snapshots of {people} people deleted (rebuilt on recall)")
    command.stdout.write("Done: rows erased so far are gone from these files (not from WAL).")


class Command(BaseCommand):
    help = (
        "Physically remove erased rows from the database files: VACUUM FULL (PostgreSQL) "
        "or VACUUM (SQLite) of the tables holding memory. Needs --yes; " + LOCKS + "."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--yes", action="store_true", help="really rewrite the tables")
        parser.add_argument(
            "--wait",
            type=float,
            default=WAIT,
            help="seconds to wait, in all, for transactions older than the reclaim to end "
            f"(they keep the rows they can see; default {WAIT})",
        )

    def handle(self, *args, **options) -> None:
        plan = reclaim_plan()
        if not plan:
            raise CommandError(f"No reclaim for the {connection.vendor} database backend.")
        if options["yes"]:
            reclaim_printing(self, wait=options["wait"])
            return
        self.stdout.write(f"Would run {_verb()} on:")
        for relation in plan:
            self.stdout.write(f"  {relation} ({_size(relation_size(relation))})")
        self.stdout.write(f"Nothing was done: add --yes to run it ({_locks()}).")
