"""A real multi-process deployment for the system tests: gunicorn (several workers) and
several `manage.py qcluster` processes on one database, started as subprocesses.

A web server listens on a port the deployment holds until it stops (tests/ports.py):
gunicorn inherits a socket the test made (`--bind fd://N`), and `manage.py serve`, which
binds by number, is given a port no other process can be given meanwhile. A health answer
counts only from a listener of the deployment's own processes, never from another test's
server, and a killed server's port refuses connections rather than reach another's.

Every process runs in its own session, so teardown SIGKILLs its whole group (a qcluster's
forked workers included). Logs go to files in the data directory; the gunicorn access log
records the serving worker's pid and the request's X-Probe header, so a test can tell
which process answered which request without any debug switch in the server.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.ports import HeldPort, serves

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
ACCESS_FORMAT = "%(p)s probe=%({x-probe}i)s %(m)s %(U)s %(s)s"


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/v1/health/", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


class Deployment:
    """Processes of one deployment sharing `database_url` (and `redis_url` as broker)."""

    def __init__(
        self, data_dir: Path, database_url: str, redis_url: str = "", **extra_env: str
    ) -> None:
        self.data_dir = data_dir
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))
        }
        self.env.update(
            GAIA_DATA_DIR=str(data_dir),
            DATABASE_URL=database_url,
            GAIA_Q_NAME=f"gaia-system-{os.getpid()}-{data_dir.name}"[:90],
            GAIA_LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
        )
        if redis_url:
            self.env["GAIA_REDIS_URL"] = redis_url
        self.env.update(extra_env)
        self.procs: dict[str, subprocess.Popen] = {}
        self.ports: list[HeldPort] = []
        self.url = ""

    def manage(self, *args: str, timeout: float = 120) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def tokens(self, usernames: list[str]) -> dict[str, str]:
        """One API token per user (created with the user): `create_api_token --create-user`
        for each, run in one `manage.py shell` (a process per user cost each its start-up,
        ~2.5 s of CPU)."""
        script = (
            "from io import StringIO\n"
            "from django.core.management import call_command\n"
            f"for name in {usernames!r}:\n"
            "    out = StringIO()\n"
            "    call_command('create_api_token', name, '--create-user', stdout=out,\n"
            "                 stderr=StringIO())\n"
            "    print(name, out.getvalue().split()[-1])\n"
        )
        lines = self.manage("shell", "-c", script).strip().splitlines()
        secrets = dict(line.split(" ", 1) for line in lines[-len(usernames) :])
        assert sorted(secrets) == sorted(usernames), lines
        return secrets

    def _spawn(self, name: str, cmd: list[str], keep_fd: int | None = None) -> subprocess.Popen:
        log = open(self.data_dir / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True,
            pass_fds=() if keep_fd is None else (keep_fd,),
        )  # fmt: skip
        log.close()
        self.procs[name] = proc
        return proc

    def _port(self) -> HeldPort:
        port = HeldPort()
        self.ports.append(port)
        self.url = port.url
        return port

    def start_web(self, workers: int = 2, threads: int = 4, name: str = "web") -> str:
        """gunicorn on a socket it inherits from the test; its URL once its workers are up."""
        port = self._port()
        with port.listener() as sock:  # the test's copy closes once gunicorn has its own
            self._spawn(
                name,
                [
                    sys.executable, "-m", "gunicorn", "gaia_site.wsgi:application",
                    "--bind", f"fd://{sock.fileno()}", "--workers", str(workers),
                    "--threads", str(threads), "--graceful-timeout", "5",
                    "--access-logfile", str(self.data_dir / "access.log"),
                    "--access-logformat", ACCESS_FORMAT,
                ],
                keep_fd=sock.fileno(),
            )  # fmt: skip
        deadline = self._wait_healthy(name, port.number)
        while len(children(self.procs[name].pid)) < workers:  # every worker booted
            assert time.monotonic() < deadline, "gunicorn workers did not start"
            time.sleep(0.2)
        return self.url

    def start_serve(self, name: str = "serve") -> str:
        """`manage.py serve`, the command `make run` ends with: gunicorn and a worker."""
        port = self._port()
        self._spawn(name, [sys.executable, "manage.py", "serve", "--port", str(port.number)])
        self._wait_healthy(name, port.number)
        return self.url

    def _wait_healthy(self, name: str, port: int) -> float:
        """Wait until the health endpoint answers 200 from a listener of process `name`
        (or of one under it); returns the start-up deadline."""
        deadline = time.monotonic() + START_TIMEOUT
        proc = self.procs[name]
        while True:
            assert proc.poll() is None, self.logs()[-3000:]
            if serves(port, proc.pid) and _healthy(self.url):
                return deadline
            assert time.monotonic() < deadline, "the web server did not start"
            time.sleep(0.2)

    def start_worker(self, name: str) -> subprocess.Popen:
        return self._spawn(name, [sys.executable, "manage.py", "qcluster"])

    def kill(self, name: str) -> None:
        """SIGKILL the process and everything in its group, at once."""
        proc = self.procs.pop(name, None)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=10)

    def stop(self) -> None:
        for name in list(self.procs):
            self.kill(name)
        for port in self.ports:
            port.release()

    def served_by(self) -> dict[str, int]:
        """probe value -> pid of the gunicorn worker that answered it."""
        path = self.data_dir / "access.log"
        out = {}
        for line in path.read_text().splitlines() if path.exists() else []:
            pid, probe, *_ = line.split(" ")
            if probe != "probe=-":
                out[probe.removeprefix("probe=")] = int(pid.strip("<>"))
        return out

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self.data_dir.glob("*.log"))
