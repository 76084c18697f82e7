"""gunicorn settings for `load_bench`: each worker reports how it kept its indexes current,
then ends as `serve`'s workers do (`core/server/gunicorn_config.py`)."""

import json
import sys

from core.server import gunicorn_config


def worker_exit(server, worker) -> None:
    """One `index-stats <pid> {...}` line on stderr as the worker stops (read by load_bench)."""
    # A gunicorn config loads before Django is set up; the worker has it set up by now.
    from retrieval.indexes import index_stats

    print(f"index-stats {worker.pid} {json.dumps(index_stats())}", file=sys.stderr, flush=True)
    gunicorn_config.worker_exit(server, worker)
