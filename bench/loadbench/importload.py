"""One user's large import beside the others' writes (load_bench --import-mb).

The file is a real export: a throwaway account is filled by bulk insert with rows the
size of real memories, exported (`memory.portability.export.export_lines`), and removed. The
import goes through the API as a person's client sends it (`POST /api/v1/import/`);
large files become a background job, run by a worker (`manage.py qcluster`) started
beside gunicorn, and the job is polled until it ends.
"""

import random
import subprocess
import sys
import time
import uuid
from typing import Any

import httpx
from django.conf import settings
from django.contrib.auth import get_user_model

from bench.loadbench.seed import words
from memory.models import KnowledgeItem
from memory.portability.export import export_lines


def export_file(megabytes: float) -> bytes:
    """An export of about `megabytes` of memories (distinct texts, one fact each)."""
    user = get_user_model().objects.create_user(f"import-src-{uuid.uuid4().hex[:8]}")
    rng = random.Random(11)
    try:
        target, made = int(megabytes * 2**20), 0
        while made < target:
            rows = [
                KnowledgeItem(owner=user, content="User " + words(rng, 24), source="tool")
                for _ in range(1000)
            ]
            KnowledgeItem.objects.bulk_create(rows)
            made += sum(len(r.content) + 420 for r in rows)  # a record's fields and keys
        return b"".join(export_lines(user=user))
    finally:
        user.delete()


def start_worker(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"], cwd=settings.BASE_DIR, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def run_import(url: str, token: str, data: bytes, timeout: float = 1800) -> dict[str, Any]:
    """POST the file, then follow its job to the end: status, records, seconds."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-ndjson"}
    started = time.monotonic()
    with httpx.Client(base_url=url, timeout=300) as http:
        answer = http.post("/api/v1/import/", content=data, headers=headers)
        if answer.status_code not in (200, 202):
            return {"status": f"HTTP {answer.status_code}: {answer.text[:200]}", "seconds": 0}
        job = answer.json()
        while answer.status_code == 202 and job.get("status") not in ("done", "failed"):
            if time.monotonic() - started > timeout:
                break
            time.sleep(0.5)
            job = http.get(f"/api/v1/imports/{job['id']}/", headers=headers).json()
    return {
        "status": job.get("status", "done"),
        "records": job.get("records_done", job.get("records")),
        "seconds": time.monotonic() - started,
        "error": job.get("error", ""),
    }
