"""Start gunicorn for the benchmark, read each process's resident memory from /proc, and
the workers' index counters from their log as they stop."""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from django.conf import settings

CONFIG = Path(__file__).with_name("gunicorn_conf.py")


def start(port: int, workers: int, threads: int, env: dict) -> subprocess.Popen:
    """gunicorn on loopback, answering; its log goes to a file (`proc.log`)."""
    proc = launch(port, workers, threads, env)
    wait_ready(proc, port)
    return proc


def launch(port: int, workers: int, threads: int, env: dict) -> subprocess.Popen:
    """gunicorn on loopback, started (several start side by side, then `wait_ready`); its
    log goes to a file (`proc.log`), a pipe could fill up."""
    log = tempfile.NamedTemporaryFile(prefix="gaia-loadbench-", suffix=".log")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "gaia_site.wsgi:application", "-c", str(CONFIG),
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
         "--preload",  # as `serve` runs it: the workers share the model loaded once
         "--no-control-socket"],  # one path per user: a second gunicorn took the first's
        cwd=settings.BASE_DIR, env={**env, "GAIA_PRELOAD_EMBEDDER": "1"}, stdout=subprocess.DEVNULL,
        stderr=log,
    )  # fmt: skip
    proc.log = log
    return proc


def wait_ready(proc: subprocess.Popen, port: int, timeout: float = 120) -> None:
    """Return once gunicorn answers its health check; RuntimeError if it exits or not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {Path(proc.log.name).read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v1/health/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s")


def process_tree(pid: int) -> list[int]:
    """`pid` and every process under it (none when it is gone)."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except FileNotFoundError:
        return []
    return [pid] + [p for kid in kids for p in process_tree(int(kid))]


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of a process: PSS counts the pages it shares with others (the model
    loaded before the fork) divided among them."""
    found = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts[0] in ("Rss:", "Pss:"):
            found[parts[0]] = int(parts[1]) / 1024
    return found.get("Rss:", 0.0), found.get("Pss:", 0.0)


def peak_mb(pid: int) -> float:
    """The most resident memory the process has had (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stop(proc: subprocess.Popen) -> list[tuple[int, dict]]:
    """Stop gunicorn gracefully; (worker pid, index counters) of each worker."""
    proc.terminate()
    proc.wait(timeout=30)
    stats = []
    for line in Path(proc.log.name).read_text(errors="replace").splitlines():
        if line.startswith("index-stats "):
            _, pid, body = line.split(" ", 2)
            stats.append((int(pid), json.loads(body)))
    proc.log.close()
    return stats
