"""Several web servers side by side, as on several hosts: each its own gunicorn (the
product's `serve` runs one per host) on its own port, started together, measured from
/proc while the load ends, and stopped for the index counters each worker reports."""

import socket
import subprocess
from dataclasses import dataclass, field

from bench.loadbench import server

Fleet = list[tuple[subprocess.Popen, int]]  # (gunicorn master, its port)


@dataclass
class Process:
    """One process of the fleet as the load ended, and (web workers) how it kept its
    indexes current (`retrieval.indexes.index_stats`, printed as it stopped)."""

    server: int  # 1-based number of its web server or task cluster
    role: str  # web master, web worker, task cluster, task process
    pid: int
    rss_mb: float
    pss_mb: float
    peak_mb: float
    stats: dict = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(count: int, workers: int, threads: int, env: dict) -> Fleet:
    """`count` gunicorns (each `workers` x `threads`) answering on ports of their own."""
    started: Fleet = []
    try:
        for _ in range(count):
            port = free_port()
            started.append((server.launch(port, workers, threads, env), port))
        for proc, port in started:
            server.wait_ready(proc, port)
    except BaseException:
        stop(started)
        raise
    return started


def urls(fleet: Fleet) -> list[str]:
    return [f"http://127.0.0.1:{port}" for _, port in fleet]


def measure(fleet: Fleet, tasks: list[subprocess.Popen]) -> list[Process]:
    """Resident memory of every process now: gunicorn masters and workers, task clusters."""
    found = []
    roots = [("web", n + 1, proc.pid) for n, (proc, _) in enumerate(fleet)]
    roots += [("task", n + 1, task.pid) for n, task in enumerate(tasks)]
    for kind, number, root in roots:
        for pid in server.process_tree(root):
            try:
                rss, pss = server.memory_mb(pid)
                peak = server.peak_mb(pid)
            except (FileNotFoundError, ProcessLookupError):
                continue  # ended meanwhile (a task cluster's worker recycled)
            if kind == "task":
                role = "task cluster" if pid == root else "task process"
            else:
                role = "web master" if pid == root else "web worker"
            found.append(Process(number, role, pid, rss, pss, peak))
    return found


def stop(fleet: Fleet, processes: list[Process] = ()) -> None:
    """Stop every gunicorn gracefully; each web worker's index counters go to its row."""
    by_pid = {p.pid: p for p in processes}
    for proc, _ in fleet:
        for pid, stats in server.stop(proc):
            if pid in by_pid:
                by_pid[pid].stats = stats
