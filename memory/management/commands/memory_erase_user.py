"""Erase one user's whole memory (the same service as the API and the web app)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.erasure import memory_erase_user


class Command(BaseCommand):
    help = "Erase everything the memory holds about a user (needs --yes; cannot be undone)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument("--yes", action="store_true", help="really erase")

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"No user '{options['user']}'.")
        counts = memory_erase_user(user=user, dry_run=not options["yes"])
        shown = ", ".join(f"{name}={count}" for name, count in counts.items())
        if options["yes"]:
            self.stdout.write(f"Erased the memory of {user.username}: {shown}")
        else:
            self.stdout.write(f"Would erase for {user.username}: {shown}")
            self.stdout.write("Nothing was erased: add --yes to erase (cannot be undone).")
