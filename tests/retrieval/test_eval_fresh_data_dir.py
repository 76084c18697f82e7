"""memory_eval on a data directory nothing has migrated yet: it migrates first, and says so."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.retrieval.test_commands import CONVERSATION

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parents[2]


def test_memory_eval_on_a_fresh_data_dir_migrates_it_and_measures(tmp_path):
    folder = tmp_path / "conversations"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(CONVERSATION))
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_")}
    environ.pop("DATABASE_URL", None)
    environ.update({"GAIA_DATA_DIR": str(tmp_path / "data"), "GAIA_REDIS_URL": ""})
    done = subprocess.run(
        [sys.executable, "manage.py", "memory_eval", "locomo", str(folder), "--ranking", "bge"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no such table" not in done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("Applying ") and "migrations to" in first
    assert "| LoCoMo, facts linked |" in done.stdout  # it went on to measure
