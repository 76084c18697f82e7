"""Process the extraction backlog now: every turn still "pending"."""

from django.core.management.base import CommandParser

from conversations.models import Turn
from conversations.services.extraction import turns_extraction_retry_failed
from learning.command import JobCommand
from learning.extraction import extract_turn


class Command(JobCommand):
    help = "Run extraction for pending turns (e.g. after configuring an LLM)."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--retry-failed", action="store_true", help="first put failed turns back to pending"
        )
        parser.add_argument("--limit", type=int, default=0, help="at most N turns")

    def handle(self, *args, **options) -> None:
        self.require_llm(options["dry_run"])
        turns = Turn.objects.none()
        for user in self.users(options["user"]):
            mine = Turn.objects.for_user(user)
            if options["retry_failed"] and not options["dry_run"]:
                turns_extraction_retry_failed(user=user)
            turns |= mine.filter(extraction_status="pending")
        ids = list(turns.order_by("pk").values_list("pk", flat=True))
        if options["limit"]:
            ids = ids[: options["limit"]]
        self.stdout.write(f"{len(ids)} pending turn(s).")
        if options["dry_run"]:
            return
        for index, turn_id in enumerate(ids, 1):
            self.progress(index, len(ids), f"turn {turn_id}", extract_turn(turn_id=turn_id))
