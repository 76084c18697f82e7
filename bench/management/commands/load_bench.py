"""Load benchmark: seed users and items, then a timed mixed load against the real server."""

import asyncio
import logging
import os
import socket

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.loadbench import driver, importload, seed, server


class Command(BaseCommand):
    help = (
        "Seed --users x --items through the services, start gunicorn (or use --url), run "
        "recall 60% / remember 20% / turns 15% / list 5% for --duration seconds, print "
        "requests/s, p50/p95/p99 per endpoint, errors, RSS per server process and how each "
        "worker kept its indexes current (catch-ups from other workers' writes vs rebuilds)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=10)
        parser.add_argument("--items", type=int, default=200, help="active items per user")
        parser.add_argument("--duration", type=float, default=30.0, help="seconds of load")
        parser.add_argument("--concurrency", type=int, default=16, help="concurrent clients")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
        parser.add_argument("--threads", type=int, default=4, help="threads per worker")
        parser.add_argument("--prefix", default="bench-", help="benchmark usernames prefix")
        parser.add_argument("--url", default="", help="use this server (same database)")
        parser.add_argument(
            "--import-mb",
            type=float,
            default=0.0,
            help="one more user imports an export of this size (MB) through the API during "
            "the load (a worker runs the job)",
        )
        parser.add_argument(
            "--writes-only", action="store_true", help="every request a remember or a turn"
        )
        parser.add_argument(
            "--bulk-seed",
            action="store_true",
            help="seed by bulk insert (minutes for 100k+ items) instead of the services",
        )

    def handle(self, *args, **o) -> None:
        if o["import_mb"] < 0:
            raise CommandError("--import-mb must be a size in MB (0 for no import).")
        logging.getLogger("httpx").setLevel(logging.WARNING)  # not one line per request
        self.stdout.write(f"Seeding {o['users']} users x {o['items']} items ...")
        tokens = seed.seed(
            users=o["users"],
            items=o["items"],
            prefix=o["prefix"],
            out=self.stdout.write,
            bulk=o["bulk_seed"],
        )
        proc = worker = None
        importer, data = None, b""
        if o["import_mb"]:
            data = importload.export_file(o["import_mb"])
            importer = seed.seed(users=1, items=0, prefix=f"{o['prefix']}importer-", out=str)
            self.stdout.write(f"Import file: {len(data) / 2**20:.1f} MB")
        url = o["url"].rstrip("/")
        if not url:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            env = {**os.environ, "GAIA_THROTTLE_RATE": "1000000/min"}
            proc = server.start(port, o["workers"], o["threads"], env)
            url = f"http://127.0.0.1:{port}"
        try:
            self.stdout.write(
                f"Load: {o['concurrency']} clients for {o['duration']:.0f} s on {url} ..."
            )
            mix = driver.WRITES if o["writes_only"] else None
            load = driver.run(url, list(tokens.values()), o["duration"], o["concurrency"], mix)
            if importer:
                worker = importload.start_worker({**os.environ})
                token = next(iter(importer.values()))
                results, imported = asyncio.run(_beside(load, url, token, data))
                self.stdout.write(
                    f"Import beside the load: {imported['status']}, {imported['records']} "
                    f"records in {imported['seconds']:.1f} s {imported.get('error') or ''}"
                )
            else:
                results = asyncio.run(load)
            for line in driver.table(results):
                self.stdout.write(line)
            for sample in results.samples:
                self.stdout.write(f"  error sample: {sample}")
            if proc is not None:
                for pid in server.process_tree(proc.pid):
                    role = "master" if pid == proc.pid else "worker"
                    rss, pss = server.memory_mb(pid)
                    self.stdout.write(f"RSS gunicorn {role} {pid}: {rss:.0f} MB (PSS {pss:.0f} MB)")
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=60)
            if proc is not None:
                for pid, stats in server.stop(proc):
                    self.stdout.write(f"Index gunicorn worker {pid}: " + _stats_line(stats))


async def _beside(load, url: str, token: str, data: bytes):
    """The load and the import at once (the import's client waits in a thread)."""
    return await asyncio.gather(load, asyncio.to_thread(importload.run_import, url, token, data))


def _stats_line(stats: dict) -> str:
    return (
        f"{stats['catch_ups']} catch-ups, {stats['rebuilds']} rebuilds, "
        f"{stats['builds']} first builds, {stats['in_place']} in-place writes, "
        f"{stats['indexes']} indexes cached in {stats['bytes'] / 2**20:.0f} MB"
    )
