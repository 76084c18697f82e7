"""Embed every item and turn that lacks a vector of the current embedding model, and store
the token vectors of every one that lacks them (late interaction)."""

import time
from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.management.users import selected_users
from retrieval import tokens
from retrieval.embedding import EmbedderError, current_model_id
from retrieval.embedding.services import embeddings_backfill, embeddings_missing
from retrieval.late_writes import enabled, tokens_backfill, tokens_missing
from retrieval.tokens import TokensError


class Command(BaseCommand):
    help = (
        "Embed items and turns without a vector of the current model, and store their token "
        "vectors (after a model change); resumable: run it again to go on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username (default: every user)")
        parser.add_argument("--dry-run", action="store_true", help="only count what is missing")
        parser.add_argument("--batch", type=int, default=500, help="rows per progress step")

    def handle(self, *args, user: str | None, dry_run: bool, batch: int, **options) -> None:
        person = selected_users(user).get() if user else None
        parts = [
            ("a vector", "embedded", current_model_id(), embeddings_missing, embeddings_backfill)
        ]
        if enabled():
            parts.append(
                ("token vectors", "encoded", tokens.MODEL_ID, tokens_missing, tokens_backfill)
            )
        for what, verb, model, missing, backfill in parts:
            counts = missing(user=person)
            self.stdout.write(
                f"Model {model}: {counts['items']} items and {counts['turns']} turns lack {what}."
            )
            if not dry_run and sum(counts.values()):
                self._run(verb, person, sum(counts.values()), missing, backfill, batch)

    def _run(
        self, verb: str, person, total: int, missing: Callable, backfill: Callable, batch: int
    ) -> None:
        done, started = 0, time.monotonic()
        while True:
            try:
                step = backfill(limit=max(1, batch), user=person)
            except (EmbedderError, TokensError) as error:
                raise CommandError(f"Model unavailable: {error}") from error
            if not step:  # nothing more could be stored (rows changed meanwhile)
                break
            done += step
            rate = done / max(time.monotonic() - started, 1e-6)
            self.stdout.write(f"  {verb} {done}/{total} ({rate:.0f}/s)")
        left = sum(missing(user=person).values())
        self.stdout.write(self.style.SUCCESS(f"Done: {done} {verb}, {left} still missing."))
