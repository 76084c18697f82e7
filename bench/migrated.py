"""Benchmarks run on a throwaway GAIA_DATA_DIR: its database is brought up to date first."""

from collections.abc import Callable

from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrated(out: Callable[[str], object]) -> None:
    """Apply any pending migration, saying so (a fresh data dir has no tables yet, and a
    benchmark would fail with "no such table")."""
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        out(f"Applying {len(pending)} migrations to {connection.settings_dict['NAME']} first.")
        call_command("migrate", verbosity=0)
