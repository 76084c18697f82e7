"""Measure quality: `memory_eval locomo <dir>` prints retrieval recall@5/@10;
`memory_eval extraction <files>` measures extraction with the configured model."""

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import extraction
from bench.locomo import evaluate_folder, table
from learning.llm import llm_configured
from retrieval.embedding import current_model_id


class Command(BaseCommand):
    help = (
        "locomo <dir>: recall@5/@10 of conversation search and knowledge recall on "
        "LoCoMo-format data. extraction <files or dirs>: precision and recall of "
        "extraction with the configured model against each session's gold observations."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", choices=["locomo", "extraction"])
        parser.add_argument(
            "paths", type=Path, nargs="+", help="LoCoMo-format *.json files or folders"
        )
        parser.add_argument("--keep", action="store_true", help="keep the throwaway users")
        parser.add_argument(
            "--sessions", type=int, default=0, help="extraction: first N sessions per file"
        )
        parser.add_argument(
            "--threshold",
            type=float,
            default=extraction.THRESHOLD,
            help="extraction: cosine at which a fact matches a gold observation",
        )

    def handle(self, *args, dataset: str, paths: list[Path], keep: bool, **options) -> None:
        if dataset == "extraction":
            return self.extraction(paths, keep=keep, **options)
        if len(paths) != 1 or not paths[0].is_dir():
            raise CommandError(f"{' '.join(map(str, paths))} is not a folder.")
        started = time.monotonic()
        try:
            scores = evaluate_folder(paths[0], keep=keep, progress=self.stderr.write)
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        for line in table(scores):
            self.stdout.write(line)
        self.stdout.write(
            "facts ceiling = share of evidence turns that any observation links to "
            f"(no ranking can exceed it). {time.monotonic() - started:.0f}s"
        )

    def extraction(self, paths: list[Path], *, keep: bool, **options) -> None:
        if not llm_configured():
            raise CommandError("No LLM is configured (GAIA_LLM_URL); nothing was measured.")
        threshold = options["threshold"]
        if not 0 < threshold <= 1:
            raise CommandError("--threshold must be between 0 and 1.")
        started = time.monotonic()
        try:
            rows = extraction.evaluate_files(
                paths,
                threshold=threshold,
                sessions=max(0, options["sessions"]),
                keep=keep,
                progress=self.stderr.write,
            )
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        model = settings.GAIA_LLM_MODEL or "the server's default model"
        self.stdout.write(
            f"Extraction by {model}; a fact matches a gold observation at cosine >= "
            f"{threshold:.2f} ({current_model_id()})."
        )
        for line in extraction.report(rows):
            self.stdout.write(line)
        self.stdout.write(f"{time.monotonic() - started:.0f}s")
