"""Judge near-duplicate pairs with the LLM now (--dry-run lists how many pairs)."""

from learning.command import JobCommand
from learning.reconciliation import reconcile_user


class Command(JobCommand):
    help = "Reconcile similar items (cosine >= 0.85, at most 20 pairs per user)."

    def handle(self, *args, **options) -> None:
        self.require_llm(options["dry_run"])
        self.each_user(options, lambda user, dry: reconcile_user(user=user, dry_run=dry))
