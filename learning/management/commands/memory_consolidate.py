"""Consolidate due sessions now (idle or old, >= 5 unconsolidated turns)."""

from learning.command import JobCommand
from learning.consolidation import BATCH_PER_USER, consolidate_session, sessions_due


class Command(JobCommand):
    help = "Consolidate sessions awaiting it into a summary note plus knowledge items."

    def handle(self, *args, **options) -> None:
        self.require_llm(options["dry_run"])
        due = []
        for user in self.users(options["user"]):
            due += list(sessions_due(user=user).select_related("owner")[:BATCH_PER_USER])
        self.stdout.write(f"{len(due)} session(s) to consolidate.")
        for index, session in enumerate(due, 1):
            label = f"{session.owner.username}/{session.session_id}"
            if options["dry_run"]:
                self.progress(index, len(due), label, {"open_turns": session.open_turns})
                continue
            self.progress(index, len(due), label, consolidate_session(session_pk=session.pk))
