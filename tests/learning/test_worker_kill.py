"""A real django-q2 worker killed with SIGKILL mid-extraction: the task is delivered
again and its effect is applied exactly once.

Runs manage.py in subprocesses against its own SQLite file (whatever DATABASE_URL
says), with the fake LLM server of this test process.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.learning import fake_llm as f
from tests.migrated import migrated_sqlite

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]
WAIT = 90.0


def _env(tmp_path: Path, llm_url: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    env.update(
        GAIA_DATA_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'kill.sqlite3'}",
        GAIA_LLM_URL=llm_url,
        GAIA_LLM_MODEL="fake",
        GAIA_LLM_TIMEOUT="4",
        GAIA_LLM_RETRIES="0",
        GAIA_Q_WORKERS="1",
        GAIA_Q_TIMEOUT="6",
        GAIA_Q_RETRY="7",
        GAIA_LOG_LEVEL="WARNING",
    )
    return env


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.2)


def _cluster(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


SETUP = """
from django.contrib.auth import get_user_model
from conversations.services.recording import turn_append
from memory.services import memory_create
user = get_user_model().objects.create_user("alice")
old = memory_create(user=user, content="User lives in Berlin")
turn = turn_append(user=user, session_id="s", role="user",
                   content="I moved from Berlin to Lisbon last spring")
print(old.pk, turn.pk)
"""


def test_a_worker_killed_mid_task_is_retried_and_applies_once(tmp_path):
    server = f.FakeLLM()
    env = _env(tmp_path, server.url)
    db = tmp_path / "kill.sqlite3"
    clusters = []
    try:
        migrated_sqlite(db)
        old_id, turn_id = map(int, _manage(env, "shell", "-c", SETUP).split()[-2:])
        server.then(f.silent(30))  # the worker is stuck in the LLM call, before any commit
        clusters.append(_cluster(env))
        _until(lambda: len(server.requests) >= 1, "the worker to call the LLM")
        _stop(clusters[-1])  # kill -9 the whole cluster mid-task

        def rows(sql: str):
            with sqlite3.connect(db) as conn:
                return conn.execute(sql).fetchall()

        assert rows(f"SELECT extraction_status FROM conversations_turn WHERE id={turn_id}") == [
            ("pending",)
        ]
        server.then(
            f.answer(
                {
                    "operations": [
                        {"op": "update", "knowledge_id": old_id, "content": "User lives in Lisbon"},
                        {"op": "add", "content": "User moved to Lisbon in spring"},
                    ]
                }
            )
        )
        clusters.append(_cluster(env))
        _until(
            lambda: (
                rows(f"SELECT extraction_status FROM conversations_turn WHERE id={turn_id}")
                == [("done",)]
            ),
            "the retried task to finish",
        )
        _stop(clusters[-1])
        # A duplicate delivery afterwards changes nothing either.
        _manage(
            env,
            "shell",
            "-c",
            f"from learning.tasks import extract_turn; extract_turn({turn_id})",
        )
        items = rows(
            "SELECT content, superseded_by_id IS NULL FROM memory_knowledgeitem ORDER BY id"
        )
        assert items == [("User lives in Lisbon", 1), ("User moved to Lisbon in spring", 1)]
        assert rows("SELECT content FROM memory_memoryversion") == [("User lives in Berlin",)]
        assert len(server.requests) == 2  # killed attempt + the one retry
    finally:
        for proc in clusters:
            _stop(proc)
        server.close()
