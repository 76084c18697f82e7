"""What the background management commands share: --user, --dry-run, progress lines."""

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from learning.llm import llm_configured


class JobCommand(BaseCommand):
    """Runs `run_for(user, dry_run)` for one user (--user) or every user, with progress."""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username (default: every user)")
        parser.add_argument("--dry-run", action="store_true", help="show, change nothing")

    def users(self, username: str | None) -> list[Any]:
        users = get_user_model().objects.order_by("username")
        if username:
            users = users.filter(username=username)
            if not users.exists():
                raise CommandError(f"No user '{username}'.")
        return list(users)

    def progress(self, index: int, total: int, label: str, result: dict[str, Any]) -> None:
        shown = ", ".join(f"{k}={v}" for k, v in result.items() if not isinstance(v, list))
        self.stdout.write(f"[{index}/{total}] {label}: {shown}")

    def each_user(self, options: dict[str, Any], run_for) -> None:
        users = self.users(options["user"])
        if options["dry_run"]:
            self.stdout.write("Dry run: nothing is changed.")
        for index, user in enumerate(users, 1):
            self.progress(index, len(users), user.username, run_for(user, options["dry_run"]))

    def require_llm(self, dry_run: bool) -> None:
        if not dry_run and not llm_configured():
            raise CommandError("No LLM is configured (GAIA_LLM_URL); nothing was attempted.")


def summed(results: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for result in results:
        for key, value in result.items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return total
