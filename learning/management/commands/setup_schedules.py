"""Create the periodic background jobs (idempotent); --startup also queues the sweeps
that catch work missed while the server was down and the start-up maintenance due."""

from django.core.management.base import BaseCommand, CommandParser

from learning.schedules import schedules_setup, startup_maintenance, startup_sweeps


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules from the GAIA_*_INTERVAL settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--startup",
            action="store_true",
            help="also queue the start-up sweeps and maintenance (decay, reconcile, "
            "consolidate, prune: each unless it ran within its interval)",
        )

    def handle(self, *args, startup: bool, **options) -> None:
        for name, what in schedules_setup():
            self.stdout.write(f"{name}: {what}")
        if startup:
            _, skipped = startup_maintenance()
            for func in startup_sweeps():
                self.stdout.write(f"queued start-up {func}")
            for func in skipped:
                self.stdout.write(f"skipped start-up {func} (ran within its interval, or off)")
