"""Rebuild users' vector indexes from the database (every process rebuilds on next search)."""

import time

from django.core.management.base import BaseCommand, CommandParser

from core.management.users import selected_users
from retrieval.corpus import declared
from retrieval.embedding import current_dim, current_model_id
from retrieval.embedding.services import embeddings_missing
from retrieval.indexes import index_rebuild


class Command(BaseCommand):
    help = "Invalidate and rebuild the per-user vector indexes (knowledge and turns)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username (default: every user)")

    def handle(self, *args, user: str | None, **options) -> None:
        users = selected_users(user)
        model_id, dim = current_model_id(), current_dim()
        for person in users:
            parts = []
            for corpus in declared():
                started = time.perf_counter()
                index = index_rebuild(corpus, person.pk, model_id, dim)
                elapsed = (time.perf_counter() - started) * 1000
                parts.append(f"{corpus.name} {index.size} vectors in {elapsed:.0f} ms")
            missing = embeddings_missing(user=person)
            line = f"{person.username}: " + "; ".join(parts)
            if any(missing.values()):
                line += (
                    f" ({missing['items']} items, {missing['turns']} turns lack a vector: "
                    "run memory_backfill)"
                )
            self.stdout.write(line)
        self.stdout.write(f"Model {model_id}; other processes rebuild on their next search.")
