"""Create the periodic background jobs (idempotent); --startup also queues the sweeps
that catch work missed while the server was down."""

from django.core.management.base import BaseCommand, CommandParser

from learning.schedules import schedules_setup, startup_sweeps


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules from the GAIA_*_INTERVAL settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--startup",
            action="store_true",
            help="also queue the start-up sweeps (extraction, consolidation)",
        )

    def handle(self, *args, startup: bool, **options) -> None:
        for name, what in schedules_setup():
            self.stdout.write(f"{name}: {what}")
        if startup:
            for func in startup_sweeps():
                self.stdout.write(f"queued start-up sweep {func}")
