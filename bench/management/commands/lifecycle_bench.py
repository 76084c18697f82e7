"""A simulated year of one account: what memory holds at the end (bench/lifecycle.py)."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.lifecycle import simulate


class Command(BaseCommand):
    help = (
        "Simulate months of use of one throwaway account (facts, repeats, corrections, "
        "forgets, recalls, prompts shown, tool errors, decay) and print what it holds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--months", type=int, default=12)
        parser.add_argument("--seed", type=int, default=5)

    def handle(self, *args, months: int, seed: int, **options) -> None:
        if not 1 <= months <= 120:
            raise CommandError("--months must be between 1 and 120.")
        result = simulate(months=months, seed=seed, out=self.stderr.write)
        self.stdout.write("| count | value |")
        self.stdout.write("|---|---|")
        for name, value in result.items():
            self.stdout.write(f"| {name} | {value} |")
