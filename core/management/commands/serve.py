"""Run the web server and a django-q2 worker together; Ctrl-C stops both cleanly."""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from retrieval.embedding import EmbedderError
from retrieval.embedding.startup import embedding_startup

STOP_GRACE_SECONDS = 15


class Command(BaseCommand):
    help = "Start gunicorn (web) and qcluster (worker) on the configured settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("GAIA_HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("GAIA_PORT", "8000"))
        parser.add_argument("--workers", default=os.environ.get("GAIA_WEB_WORKERS", "1"))
        parser.add_argument("--threads", default=os.environ.get("GAIA_WEB_THREADS", "8"))
        parser.add_argument("--no-worker", action="store_true", help="web server only")

    def handle(
        self, *args, host: str, port: str, workers: str, threads: str, no_worker: bool, **options
    ) -> None:
        try:
            self.stdout.write(embedding_startup())
        except EmbedderError as error:
            raise CommandError(str(error)) from error
        manage = str(settings.BASE_DIR / "manage.py")
        commands = {
            "web": [
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
                "--access-logfile",
                "-",
                "--chdir",
                str(settings.BASE_DIR),
            ],
        }
        if not no_worker:
            commands["worker"] = [sys.executable, manage, "qcluster"]
        env = {**os.environ, "GAIA_PRELOAD_EMBEDDER": "1"}
        procs = {name: subprocess.Popen(cmd, env=env) for name, cmd in commands.items()}
        self.stdout.write(
            self.style.SUCCESS(
                f"Gaia Memory Server on http://{host}:{port}/ (data: {settings.DATA_DIR}); "
                "Ctrl-C stops it."
            )
        )
        code = 0
        try:
            while True:
                for name, proc in procs.items():
                    if proc.poll() is not None:
                        self.stderr.write(f"{name} exited with {proc.returncode}; stopping.")
                        code = proc.returncode or 1
                        raise StopIteration
                time.sleep(0.5)
        except (KeyboardInterrupt, StopIteration):
            pass
        finally:
            _stop(procs.values())
        self.stdout.write("Stopped.")
        if code:
            sys.exit(code)


def _stop(procs) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
