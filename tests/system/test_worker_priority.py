"""Task workers run nicer than the web server: on shared cores, requests come first."""

import os
import time
from pathlib import Path

import pytest

from tests.system.deployment import children

pytestmark = pytest.mark.system


def _tree(pid: int) -> list[int]:
    out = []
    for child in children(pid):
        out += [child, *_tree(child)]
    return out


def _nice(pid: int) -> int:
    # /proc/PID/stat: "pid (comm) state ..." with the nice value the 19th field.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


def test_the_task_workers_run_at_a_lower_priority_than_the_web_server(deployment):
    base = os.nice(0)
    deployment.start_web(workers=2)
    worker = deployment.start_worker("qcluster")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        niced = [p for p in _tree(worker.pid) if _nice(p) == min(19, base + 10)]
        if len(niced) >= 2:  # GAIA_Q_WORKERS task workers, each lowered as it started
            break
        time.sleep(0.3)
    assert len(niced) == 2, [(p, _nice(p)) for p in _tree(worker.pid)]
    assert _nice(worker.pid) == base  # the cluster's own processes are left as they are
    web = deployment.procs["web"].pid
    assert {_nice(p) for p in [web, *_tree(web)]} == {base}
