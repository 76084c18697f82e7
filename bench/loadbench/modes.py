"""One routing of the load over a fresh fleet of web servers: no affinity (round robin)
or person affinity (the token's hash picks the server).

Each mode starts its own servers, so its memory and index counters are its own; the
task clusters run beside every mode, and what they failed during it is counted.
"""

import asyncio
import subprocess
from dataclasses import dataclass, field

from django.utils import timezone
from django_q.brokers import get_broker
from django_q.models import Failure

from bench.loadbench import driver, fleet, importload

MODES = {"no affinity": False, "person affinity": True}


@dataclass(frozen=True)
class Load:
    """What every mode sends: the same tokens, mix, clients and duration."""

    tokens: list[str]
    duration: float
    concurrency: int
    mix: dict | None = None


@dataclass(frozen=True)
class Servers:
    web: int
    workers: int
    threads: int
    env: dict


@dataclass
class ModeRun:
    name: str
    results: driver.Results
    processes: list[fleet.Process] = field(default_factory=list)
    task_failures: int = 0
    queued_left: int = 0
    imported: dict | None = None


def run_mode(
    name: str,
    load: Load,
    servers: Servers,
    tasks: list[subprocess.Popen],
    importing: tuple[str, bytes] | None = None,
) -> ModeRun:
    """The load routed as `name` says over `servers.web` fresh servers; `importing`
    (a token and an export) is imported through the first server beside it."""
    began = timezone.now()
    started = fleet.start(servers.web, servers.workers, servers.threads, servers.env)
    processes: list[fleet.Process] = []
    try:
        urls = fleet.urls(started)
        work = driver.run(urls, load.tokens, load.duration, load.concurrency, load.mix, MODES[name])
        imported = None
        if importing:
            results, imported = asyncio.run(_beside(work, urls[0], *importing))
        else:
            results = asyncio.run(work)
        processes = fleet.measure(started, tasks)
    finally:
        fleet.stop(started, processes)
    failures = Failure.objects.filter(stopped__gte=began).count()
    return ModeRun(name, results, processes, failures, _queued(), imported)


async def _beside(load, url: str, token: str, data: bytes):
    """The load and the import at once (the import's client waits in a thread)."""
    return await asyncio.gather(load, asyncio.to_thread(importload.run_import, url, token, data))


def _queued() -> int:
    """Tasks still waiting in the queue (the workers' backlog as the mode ended)."""
    return int(get_broker().queue_size() or 0)
