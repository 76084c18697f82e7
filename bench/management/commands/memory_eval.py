"""Measure retrieval quality: `memory_eval locomo <dir> [--scenarios own-facts.json]`.

Prints one table with every condition (facts unlinked, linked, mixed; own facts; nonsense
questions), then the linked condition by question category.
"""

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.locomo import conditions_table, evaluate_folder, table


class Command(BaseCommand):
    help = "Recall@5/@10 of conversation search and knowledge recall on LoCoMo-format data."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", choices=["locomo"])
        parser.add_argument("folder", type=Path, help="folder of LoCoMo-format *.json files")
        parser.add_argument(
            "--scenarios",
            type=Path,
            help="own-facts JSON (own_facts, nonsense_questions) asked beside the linked facts",
        )
        parser.add_argument("--keep", action="store_true", help="keep the throwaway users")

    def handle(
        self, *args, dataset: str, folder: Path, scenarios: Path | None, keep: bool, **options
    ) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        probes = _scenarios(scenarios) if scenarios else None
        started = time.monotonic()
        try:
            scores = evaluate_folder(
                folder, scenarios=probes, keep=keep, progress=self.stderr.write
            )
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        for line in [*conditions_table(scores), "", "Linked facts by category:", *table(scores)]:
            self.stdout.write(line)
        self.stdout.write(
            "facts ceiling = share of evidence turns that any observation links to "
            f"(no ranking can exceed it). {time.monotonic() - started:.0f}s"
        )


def _scenarios(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise CommandError(f"{path}: {error}") from error
    if not isinstance(data, dict) or not {"own_facts", "nonsense_questions"} <= set(data):
        raise CommandError(f"{path}: needs 'own_facts' and 'nonsense_questions'.")
    return data
