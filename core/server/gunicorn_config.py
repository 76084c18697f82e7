"""Gunicorn settings `serve` starts it with (`--config python:core.server.gunicorn_config`;
`load_bench` calls its `worker_exit`). Standard library only: gunicorn loads it before
Django is set up.

A worker is forked from a master that loaded the embedding model (`--preload`), so the
model runtime's native thread pool exists only in the master. A worker ending like any
Python process runs the runtime's C++ destructors, which then abort ("terminate called
after throwing an instance of 'std::system_error'", SIGABRT) on every stop. So a worker
ends with `os._exit` once gunicorn is done with it, with the exit code it was leaving with:
its requests are answered, its logs are flushed here, and the operating system closes its
files and connections as on any exit.
"""

import logging
import os
import sys
from typing import Any

# A request reaches a thread only once it has all arrived (core/server/gunicorn_worker.py).
worker_class = "core.server.gunicorn_worker.BufferingThreadWorker"


def child_exit(server: Any, worker: Any) -> None:
    """In the master, once a worker is gone: with metrics on (multiprocess mode), its live
    gauges stop counting (prometheus-client's own advice for gunicorn)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # only when the settings turned it on

        multiprocess.mark_process_dead(worker.pid)


def worker_exit(server: Any, worker: Any) -> None:
    leaving = sys.exc_info()[1]  # gunicorn calls this while the worker's SystemExit unwinds
    if isinstance(leaving, SystemExit):
        code = leaving.code if isinstance(leaving.code, int) else int(leaving.code is not None)
    else:
        code = 1 if leaving else 0
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
