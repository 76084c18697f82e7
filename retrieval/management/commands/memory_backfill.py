"""Embed every item and turn that lacks a vector of the current embedding model."""

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.management.users import selected_users
from retrieval.embedding import EmbedderError, current_model_id
from retrieval.embedding.services import embeddings_backfill, embeddings_missing


class Command(BaseCommand):
    help = "Embed items and turns without a vector of the current model (after a model change)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username (default: every user)")
        parser.add_argument("--dry-run", action="store_true", help="only count what is missing")
        parser.add_argument("--batch", type=int, default=500, help="rows per progress step")

    def handle(self, *args, user: str | None, dry_run: bool, batch: int, **options) -> None:
        person = selected_users(user).get() if user else None
        missing = embeddings_missing(user=person)
        total = sum(missing.values())
        self.stdout.write(
            f"Model {current_model_id()}: {missing['items']} items and {missing['turns']} "
            "turns lack a vector."
        )
        if dry_run or not total:
            return
        done, started = 0, time.monotonic()
        while True:
            try:
                step = embeddings_backfill(limit=max(1, batch), user=person)
            except EmbedderError as error:
                raise CommandError(f"Embedder unavailable: {error}") from error
            if not step:  # nothing more could be embedded (rows changed meanwhile)
                break
            done += step
            rate = done / max(time.monotonic() - started, 1e-6)
            self.stdout.write(f"  embedded {done}/{total} ({rate:.0f}/s)")
        left = sum(embeddings_missing(user=person).values())
        self.stdout.write(self.style.SUCCESS(f"Done: {done} embedded, {left} still missing."))
