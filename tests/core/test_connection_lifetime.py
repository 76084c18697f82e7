"""How long a request's database connection lives: on SQLite the next request of the same
thread reuses it (opening one costs its pragmas, the schema and a cold page cache); with
a database server each request opens its own unless GAIA_DB_CONN_MAX_AGE says otherwise."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Two requests in a row, as Django's request cycle closes and opens connections.
TWO_REQUESTS = """
import os
os.environ["DJANGO_SETTINGS_MODULE"] = "gaia_site.settings"
import django
django.setup()
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import connection
if connection.vendor == "sqlite":
    request_started.send(sender=None)
    connection.ensure_connection()
    first = connection.connection
    request_finished.send(sender=None)
    request_started.send(sender=None)
    connection.ensure_connection()
    print("reused" if connection.connection is first else "reopened")
else:
    print(settings.DATABASES["default"]["CONN_MAX_AGE"])
"""


def _run(tmp_path: Path, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "DATABASE_URL"))}
    environ.update({"GAIA_DATA_DIR": str(tmp_path), "GAIA_LOG_LEVEL": "WARNING", **env})
    done = subprocess.run(
        [sys.executable, "-c", TWO_REQUESTS],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_on_sqlite_the_next_request_reuses_the_connection(tmp_path):
    assert _run(tmp_path) == "reused"


def test_on_sqlite_a_zero_lifetime_reopens_it_for_every_request(tmp_path):
    assert _run(tmp_path, GAIA_DB_CONN_MAX_AGE="0") == "reopened"


def test_a_database_server_gets_a_connection_per_request_unless_configured(tmp_path):
    url = "postgres://nobody@127.0.0.1:1/none"  # never connected to: the setting is read
    assert _run(tmp_path, DATABASE_URL=url) == "0"
    assert _run(tmp_path, DATABASE_URL=url, GAIA_DB_CONN_MAX_AGE="60") == "60"
