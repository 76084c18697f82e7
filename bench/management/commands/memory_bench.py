"""Measure speed: recall and conversation-search latency, write throughput, index build."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.cold import cold_table
from bench.migrated import migrated
from bench.speed import measure, table
from bench.stage import stage_table


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "").replace("k", "000")) for part in text.split(",")]
    except ValueError as error:
        raise CommandError(f"--sizes: {error}") from error
    if not sizes or min(sizes) < 10:
        raise CommandError("--sizes: give sizes of at least 10, e.g. 1000,10000,100000")
    return sizes


class Command(BaseCommand):
    help = "Seed N items and turns for a throwaway user and time the services (N = 1k,10k,100k)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,10000,100000", help="e.g. 1k,10k,100k")
        parser.add_argument("--queries", type=int, default=200, help="searches timed per size")
        parser.add_argument("--single-writes", type=int, default=100)
        parser.add_argument("--batch-writes", type=int, default=500)
        parser.add_argument("--pool", type=int, default=2000, help="texts embedded for real")
        parser.add_argument("--users", type=int, default=0, help="other users seeded too")
        parser.add_argument("--user-items", type=int, default=1000, help="items per other user")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark users")
        parser.add_argument(
            "--sourced",
            action="store_true",
            help="link each item to a turn (source_turn): recall also runs its conversation stage",
        )

    def handle(self, *args, **options) -> None:
        sizes = _sizes(options["sizes"])
        migrated(self.stderr.write)
        rows = []
        for size in sizes:
            rows.append(
                measure(
                    size,
                    queries=max(10, options["queries"]),
                    single_writes=max(1, options["single_writes"]),
                    batch_writes=max(1, options["batch_writes"]),
                    pool=max(10, options["pool"]),
                    other_users=max(0, options["users"]),
                    other_items=max(10, options["user_items"]),
                    keep=options["keep"],
                    sourced=options["sourced"],
                    progress=self.stderr.write,
                )
            )
            self.stderr.write("\n".join(table(rows[-1:])[2:]))
            if rows[-1].cold:
                self.stderr.write("\n".join(cold_table([rows[-1].cold])[2:]))
        for line in table(rows):
            self.stdout.write(line)
        self.stdout.write("")
        for line in cold_table([row.cold for row in rows if row.cold]):
            self.stdout.write(line)
        self.stdout.write("")
        for line in stage_table([row.stage for row in rows if row.stage]):
            self.stdout.write(line)
