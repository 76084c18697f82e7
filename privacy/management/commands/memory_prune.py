"""Delete turns and tool calls older than 90 days and long-unused weak knowledge."""

from django.core.management.base import CommandError, CommandParser

from learning.command import JobCommand
from privacy.retention import prune_user


class Command(JobCommand):
    help = "Prune old turns, tool calls and low-confidence knowledge (needs --yes)."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--yes", action="store_true", help="really delete")

    def handle(self, *args, **options) -> None:
        if not (options["yes"] or options["dry_run"]):
            raise CommandError("This deletes data: add --yes, or --dry-run to see counts.")
        self.each_user(options, lambda user, dry: prune_user(user=user, dry_run=dry))
