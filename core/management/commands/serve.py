"""Run the web server and a django-q2 worker together; Ctrl-C, SIGTERM or SIGHUP stops both.

The signal is passed on to both children (SIGHUP as SIGTERM: gunicorn would take a
HUP as "reload") and serve waits for them, up to STOP_GRACE_SECONDS, before it exits;
children still running then are killed. A second signal while stopping stops waiting.

Each child runs in a process group of its own, so a Ctrl-C in the terminal reaches serve
alone and each child gets the stop signal once, from serve. Sent to the whole group as
well, it reached qcluster twice within a moment, and django-q2's cluster deadlocks on a
stop signal that arrives while its handler of the first still holds its lock: its
processes stayed behind after serve had given up on them. On Linux each child is also
sent SIGTERM by the kernel when serve dies, however it dies (even by SIGKILL), so a
child outside serve's group is never left running on its own. Once the children are gone,
whatever is left in their process groups (a worker process a child started just before
it was stopped) is stopped too.
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from accounts.first_admin import first_admin_login, first_admin_path, first_admin_shown
from learning.schedules import schedules_setup
from retrieval.embedding import EmbedderError
from retrieval.embedding.startup import embedding_startup
from retrieval.snapshot_marks import erases_catch_up

STOP_GRACE_SECONDS = 15
GROUP_GRACE_SECONDS = 5  # for what a child left behind in its process group
# Gunicorn's default access line holds the query string and the referrer, and with them
# what people searched for (/memories/?q=...). This one keeps the path only, and ends
# with the request id the answer carried (the one its log lines name).
ACCESS_LOG_FORMAT = (
    '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'
)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # prctl(2)
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
# What each child gets for the signal serve received.
FORWARD = {
    signal.SIGINT: signal.SIGINT,
    signal.SIGTERM: signal.SIGTERM,
    signal.SIGHUP: signal.SIGTERM,
}


class Stop(Exception):
    """Raised in the main thread by a stop signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stop(signum: int, frame) -> None:
    raise Stop(signum)


def _ended_with_serve() -> None:
    """Run in a child before it starts: the kernel sends it SIGTERM when serve dies."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Command(BaseCommand):
    help = "Start gunicorn (web) and qcluster (worker) on the configured settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("GAIA_HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("GAIA_PORT", "8000"))
        parser.add_argument("--workers", default=os.environ.get("GAIA_WEB_WORKERS", "1"))
        parser.add_argument("--threads", default=os.environ.get("GAIA_WEB_THREADS", "8"))
        parser.add_argument("--no-worker", action="store_true", help="web server only")
        parser.add_argument(
            "--check-port",
            action="store_true",
            help="only check that host:port is free, and end (make run does it first, "
            "before the migrations and the rest of start-up)",
        )

    def handle(
        self,
        *args,
        host: str,
        port: str,
        workers: str,
        threads: str,
        no_worker: bool,
        check_port: bool = False,
        **options,
    ) -> None:
        _check_port(host, port)
        if check_port:
            return
        for note in front_notes(host):
            self.stdout.write(self.style.WARNING(note))
        try:
            self.stdout.write(embedding_startup())
        except EmbedderError as error:
            raise CommandError(str(error)) from error
        for name, what in schedules_setup():  # the schedules follow this start's settings
            self.stdout.write(f"{name}: {what}")
        if settings.GAIA_INDEX_SNAPSHOTS:  # erases other nodes made while this one was down
            try:
                erases_catch_up()
            except DatabaseError as error:  # not migrated yet: the watcher retries later
                self.stdout.write(self.style.WARNING(f"snapshot erases not applied: {error}"))
        if settings.GAIA_METRICS:  # the last run's processes' files (multiprocess mode)
            for stale in Path(settings.GAIA_METRICS_DIR).glob("*.db"):
                stale.unlink(missing_ok=True)
        commands = {"web": _web_command(host, port, workers, threads)}
        if not no_worker:
            commands["worker"] = [sys.executable, str(settings.BASE_DIR / "manage.py"), "qcluster"]
        for signum in STOP_SIGNALS:  # before the children start: none may be left behind
            signal.signal(signum, _raise_stop)
        code = self._run(commands, host, port)
        self.stdout.write("Stopped.")
        if code:
            sys.exit(code)

    def _run(self, commands: dict[str, list[str]], host: str, port: str) -> int:
        """Start the children and watch them until one exits or a stop signal comes, then
        stop them all; serve's exit code (that of a child that exited on its own)."""
        procs: dict[str, subprocess.Popen] = {}
        code, received = 0, signal.SIGTERM
        try:
            _start(commands, procs)
            code = self._watch(procs, host, port)
        except Stop as stop:
            received = stop.signum
        except KeyboardInterrupt:
            received = signal.SIGINT
        finally:
            # A child that failed on its own just as the stop came still names the exit code.
            failed = [p.returncode for p in procs.values() if p.poll() not in (None, 0)]
            _stop(list(procs.values()), FORWARD[received])
        return code or (failed[0] if failed else 0)

    def _watch(self, procs: dict[str, subprocess.Popen], host: str, port: str) -> int:
        """Announce the server once it listens; return when a child exits (its code, or 1)."""
        announced = False
        while True:
            if not announced and _listening(host, port):  # a banner only once it is true
                self._announce(host, port)
                announced = True
            for name, proc in procs.items():
                if proc.poll() is not None:
                    self.stderr.write(f"{name} exited with {proc.returncode}; stopping.")
                    return proc.returncode or 1
            time.sleep(0.5)

    def _announce(self, host: str, port: str) -> None:
        self.stdout.write(
            self.style.SUCCESS(
                f"Gaia Memory Server on http://{host}:{port}/ (data: {settings.DATA_DIR}); "
                "Ctrl-C stops it."
            )
        )
        login = first_admin_login()
        if login is None:
            return
        if first_admin_shown():  # printed once: a kept log must not hold it on every start
            self.stdout.write(
                self.style.WARNING(
                    f"Admin login: {login[0]}, with the password generated at the first start "
                    f"(in {first_admin_path()} until you change it on /password/)"
                )
            )
            return
        self.stdout.write(
            self.style.WARNING(
                f"Admin login: {login[0]} / {login[1]} (generated at the first start; shown "
                f"this once, kept in {first_admin_path()} until you change it on /password/)"
            )
        )


def _web_command(host: str, port: str, workers: str, threads: str) -> list[str]:
    """gunicorn serving the site on host:port."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "gaia_site.wsgi:application",
        "--bind",
        f"{host}:{port}",
        "--workers",
        workers,
        "--threads",
        threads,
        "--graceful-timeout",
        "10",
        "--preload",  # workers share the model loaded once (GAIA_PRELOAD_EMBEDDER)
        "--config",
        "python:core.server.gunicorn_config",  # how a preloaded worker ends
        "--access-logfile",
        "-",
        "--access-logformat",
        ACCESS_LOG_FORMAT,
        # gunicorn's control socket is one path per user ($XDG_RUNTIME_DIR or
        # ~/.gunicorn): a second instance took over the first one's. serve is
        # stopped by signals and needs none.
        "--no-control-socket",
        "--chdir",
        str(settings.BASE_DIR),
    ]


def _start(commands: dict[str, list[str]], procs: dict[str, subprocess.Popen]) -> None:
    """Start each command as a child, added to `procs` as it starts: a stop signal while
    the next one starts still reaches those already running."""
    env = {**os.environ, "GAIA_PRELOAD_EMBEDDER": "1"}
    for name, cmd in commands.items():
        procs[name] = subprocess.Popen(
            cmd,
            env=env,
            process_group=0,
            preexec_fn=_ended_with_serve if _LIBC else None,
        )


def _check_port(host: str, port: str) -> None:
    """Refuse to start, saying how to choose another port, when the address is taken."""
    try:
        addresses = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        family, _, _, _, address = addresses[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
            probe.bind(address)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise CommandError(
            f"Cannot listen on {host}:{port} ({reason}). Is another server using the port? "
            "Stop it, or choose another port: GAIA_PORT=8001 make run "
            "(or manage.py serve --port 8001; GAIA_HOST for the address)."
        ) from None


def _listening(host: str, port: str) -> bool:
    """Whether the web server accepts connections on host:port yet."""
    target = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    try:
        with socket.create_connection((target, int(port)), timeout=1):
            return True
    except OSError:
        return False


def front_notes(host: str) -> list[str]:
    """What serve says about what stands in front of it (docs/operating.md, Production)."""
    loopback = host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")
    if loopback:
        return []
    if not settings.SECURE_PROXY_SSL_HEADER:
        return [
            f"Listening on {host} with no reverse proxy in front (GAIA_BEHIND_PROXY is off): "
            "plain HTTP, passwords and tokens readable on the network. Beyond this machine, "
            "run the production topology: a TLS proxy (nginx) on 127.0.0.1:PORT "
            "(docs/operating.md, Production)."
        ]
    return [
        f"GAIA_BEHIND_PROXY is on but the server listens on {host}: clients can reach it "
        "around the proxy and claim HTTPS in X-Forwarded-Proto. Bind to 127.0.0.1 "
        "(GAIA_HOST) and let only the proxy in (docs/operating.md, Production)."
    ]


def _stop(procs: list[subprocess.Popen], signum: int) -> None:
    """Send `signum` to the running children and wait for them; kill what is left."""
    try:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
    except (Stop, KeyboardInterrupt):
        pass  # asked again: stop waiting
    finally:
        for signum in STOP_SIGNALS:  # nothing may interrupt the last step
            signal.signal(signum, signal.SIG_IGN)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        _end_groups([proc.pid for proc in procs])


def _end_groups(groups: list[int]) -> None:
    """Stop what is left in each child's process group once the child is gone: a child that
    exits while its own children are starting (django-q2's cluster stopped right after it
    began) can leave them running, orphaned. They get SIGTERM, then SIGKILL after
    GROUP_GRACE_SECONDS."""
    left = [g for g in groups if _signal_group(g, signal.SIGTERM)]
    deadline = time.monotonic() + GROUP_GRACE_SECONDS
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [g for g in left if _signal_group(g, 0)]
    for group in left:
        _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, signum: int) -> bool:
    """Send `signum` to every process of `group` (0: only ask); False when none is left."""
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):  # gone (or no longer ours)
        return False
    return True
