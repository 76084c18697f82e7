"""Measure retrieval quality: `memory_eval locomo <dir>` prints recall@5/@10."""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.locomo import evaluate_folder, table


class Command(BaseCommand):
    help = "Recall@5/@10 of conversation search and knowledge recall on LoCoMo-format data."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", choices=["locomo"])
        parser.add_argument("folder", type=Path, help="folder of LoCoMo-format *.json files")
        parser.add_argument("--keep", action="store_true", help="keep the throwaway users")

    def handle(self, *args, dataset: str, folder: Path, keep: bool, **options) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        started = time.monotonic()
        try:
            scores = evaluate_folder(folder, keep=keep, progress=self.stderr.write)
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        for line in table(scores):
            self.stdout.write(line)
        self.stdout.write(
            "facts ceiling = share of evidence turns that any observation links to "
            f"(no ranking can exceed it). {time.monotonic() - started:.0f}s"
        )
