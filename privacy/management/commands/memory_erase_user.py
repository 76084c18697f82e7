"""Erase one user's whole memory (the same service as the API and the web app)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from privacy.management.commands.memory_reclaim import WAIT, reclaim_printing
from privacy.services import memory_erase_user


class Command(BaseCommand):
    help = "Erase everything the memory holds about a user (needs --yes; cannot be undone)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument("--yes", action="store_true", help="really erase")
        parser.add_argument(
            "--vacuum",
            action="store_true",
            help="then rewrite the memory tables so the erased bytes leave the database "
            "files (as memory_reclaim --yes: locks each table while it is rewritten)",
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=WAIT,
            help=f"with --vacuum: as memory_reclaim --wait (default {WAIT} s)",
        )

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"No user '{options['user']}'.")
        counts = memory_erase_user(user=user, dry_run=not options["yes"])
        shown = ", ".join(f"{name}={count}" for name, count in counts.items())
        if options["yes"]:
            self.stdout.write(f"Erased the memory of {user.username}: {shown}")
            if options["vacuum"]:
                reclaim_printing(self, wait=options["wait"])
        else:
            self.stdout.write(f"Would erase for {user.username}: {shown}")
            if options["vacuum"]:
                self.stdout.write("Would then reclaim the space (see memory_reclaim).")
            self.stdout.write("Nothing was erased: add --yes to erase (cannot be undone).")
