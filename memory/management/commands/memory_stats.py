"""Print memory counts for one user or for every user."""

import json

from django.core.management.base import BaseCommand, CommandParser

from core.management.users import selected_users
from learning.llm.status import llm_stats
from memory.selectors import memory_stats


class Command(BaseCommand):
    help = "Counts of knowledge, conversations, tool calls and backlog per user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username (default: every user)")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, user: str | None, **options) -> None:
        users = selected_users(user)
        report = {u.username: {**memory_stats(user=u), "llm": llm_stats(user=u)} for u in users}
        if options["json"]:
            self.stdout.write(_json(report))
            return
        for username, stats in report.items():
            k = stats["knowledge"]
            self.stdout.write(
                f"{username}: {k['active']} active, {k['forgotten']} forgotten, "
                f"{k['superseded']} superseded; {stats['conversations']['turns']} turns in "
                f"{stats['conversations']['sessions']} sessions; "
                f"{stats['tool_calls']['total']} tool calls; embedded "
                f"{stats['embeddings']['coverage']:.0%}; extraction pending "
                f"{stats['extraction']['pending']}"
            )
            llm = stats["llm"]
            self.stdout.write(
                f"  llm: {llm['state']}; {llm['calls_ok']} ok, {llm['failures_total']} failed; "
                f"backlog {llm['backlog']['turns_pending']} turns, "
                f"{llm['backlog']['sessions_awaiting_consolidation']} sessions"
            )
            if k["by_category"]:
                cats = ", ".join(f"{c}={n}" for c, n in k["by_category"].items())
                self.stdout.write(f"  by category: {cats}")


def _json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True)
