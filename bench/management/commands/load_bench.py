"""Load benchmark: seed users and items, then a timed mixed load against real servers."""

import asyncio
import logging
import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.loadbench import driver, importload, modes, report, seed


class Command(BaseCommand):
    help = (
        "Seed --users x --items, start --web gunicorns (or use --url) and --task-workers "
        "qclusters, run recall 60% / remember 20% / turns 15% / list 5% for --duration "
        "seconds and print requests/s, p50/p99 per endpoint, errors, RSS per process and how "
        "each worker kept its indexes current. With several web servers the load runs twice, "
        "with no affinity (round robin) and with person affinity (a hash of the token picks "
        "the server), printed side by side."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=10)
        parser.add_argument("--items", type=int, default=200, help="active items per user")
        parser.add_argument("--duration", type=float, default=30.0, help="seconds per routing")
        parser.add_argument("--concurrency", type=int, default=16, help="concurrent clients")
        parser.add_argument(
            "--web", type=int, default=1, help="web servers, each its own gunicorn and port"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="gunicorn workers per web server (default 2 with one server, else 1: "
            "affinity must reach one process)",
        )
        parser.add_argument("--threads", type=int, default=4, help="threads per worker")
        parser.add_argument(
            "--task-workers",
            type=int,
            default=0,
            help="task clusters (manage.py qcluster) beside the web servers, running the "
            "writes' background tasks",
        )
        parser.add_argument("--prefix", default="bench-", help="benchmark usernames prefix")
        parser.add_argument("--url", default="", help="use this server (same database)")
        parser.add_argument(
            "--import-mb",
            type=float,
            default=0.0,
            help="one more user imports an export of this size (MB) through the API during "
            "the load (a task worker runs the job); one web server only",
        )
        parser.add_argument(
            "--writes-only", action="store_true", help="every request a remember or a turn"
        )
        parser.add_argument(
            "--bulk-seed",
            action="store_true",
            help="seed by bulk insert (minutes for 1,000 people x 1,000 items) instead of "
            "the services",
        )

    def handle(self, *args, **o) -> None:
        if o["import_mb"] < 0:
            raise CommandError("--import-mb must be a size in MB (0 for no import).")
        if o["web"] < 1 or o["task_workers"] < 0:
            raise CommandError("--web must be 1 or more, --task-workers 0 or more.")
        if o["import_mb"] and (o["web"] > 1 or o["url"]):
            raise CommandError("--import-mb runs beside one web server this command starts.")
        logging.getLogger("httpx").setLevel(logging.WARNING)  # not one line per request
        self.stdout.write(f"Seeding {o['users']} users x {o['items']} items ...")
        tokens = seed.seed(
            users=o["users"],
            items=o["items"],
            prefix=o["prefix"],
            out=self.stdout.write,
            bulk=o["bulk_seed"],
        )
        mix = driver.WRITES if o["writes_only"] else None
        load = modes.Load(list(tokens.values()), o["duration"], o["concurrency"], mix)
        if o["url"]:
            self.stdout.write(f"Load: {o['concurrency']} clients for {o['duration']:.0f} s ...")
            results = asyncio.run(driver.run([o["url"].rstrip("/")], *_args(load)))
            self._write(driver.table(results) + results.samples)
            return
        seed.warm(list(tokens), out=self.stdout.write)
        self._fleet(load, o)

    def _fleet(self, load: modes.Load, o: dict) -> None:
        importing = None
        if o["import_mb"]:
            data = importload.export_file(o["import_mb"])
            importer = seed.seed(users=1, items=0, prefix=f"{o['prefix']}importer-", out=str)
            importing = (next(iter(importer.values())), data)
            self.stdout.write(f"Import file: {len(data) / 2**20:.1f} MB")
        workers = o["workers"] or (2 if o["web"] == 1 else 1)
        env = {**os.environ, "GAIA_THROTTLE_RATE": "1000000/min"}
        servers = modes.Servers(o["web"], workers, o["threads"], env)
        count = max(o["task_workers"], 1 if importing else 0)
        tasks = [importload.start_worker({**os.environ}) for _ in range(count)]
        names = list(modes.MODES) if o["web"] > 1 else ["no affinity"]
        runs: list[modes.ModeRun] = []
        try:
            for name in names:
                self.stdout.write(
                    f"Load ({name}): {o['concurrency']} clients for {o['duration']:.0f} s on "
                    f"{o['web']} web server(s) x {workers} worker(s) x {o['threads']} threads, "
                    f"{count} task cluster(s) ..."
                )
                runs.append(modes.run_mode(name, load, servers, tasks, importing))
        finally:
            for task in tasks:
                task.terminate()
            for task in tasks:
                task.wait(timeout=60)
        self._results(runs)

    def _results(self, runs: list[modes.ModeRun]) -> None:
        if len(runs) == 1:
            self._write(driver.table(runs[0].results))
        else:
            self._write(report.side_by_side(runs))
        for run in runs:
            if run.imported:
                imported = run.imported
                self.stdout.write(
                    f"Import beside the load: {imported['status']}, {imported['records']} "
                    f"records in {imported['seconds']:.1f} s {imported.get('error') or ''}"
                )
            for sample in run.results.samples:
                self.stdout.write(f"  error sample ({run.name}): {sample}")
        self._write(report.processes(runs, settings.GAIA_INDEX_CACHE_MB))
        self.stdout.write(report.LEGEND)

    def _write(self, lines: list[str]) -> None:
        for line in lines:
            self.stdout.write(line)


def _args(load: modes.Load) -> tuple:
    return load.tokens, load.duration, load.concurrency, load.mix
