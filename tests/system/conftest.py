"""Fixtures of the system tests: a private database (a SQLite file, or a fresh PostgreSQL
database when DATABASE_URL points at PostgreSQL, dropped afterwards), the Redis broker when
GAIA_REDIS_URL is set, an extraction LLM, and a deployment whose processes always die.
"""

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.system.deployment import Deployment
from tests.system.echo_llm import EchoLLM


@pytest.fixture
def database_url(tmp_path: Path):
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path / 'gaia.sqlite3'}"
        return
    name = f"gaia_system_{secrets.token_hex(4)}"
    parts = urlsplit(given)
    admin_url = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def redis_url() -> str:
    """The broker of the deployment: Redis when the test run has GAIA_REDIS_URL."""
    return os.environ.get("GAIA_REDIS_URL", "")


@pytest.fixture
def echo_llm():
    server = EchoLLM()
    yield server
    server.close()


@pytest.fixture
def deployment(tmp_path: Path, database_url: str, redis_url: str, echo_llm: EchoLLM):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    deploy = Deployment(
        data_dir,
        database_url,
        redis_url,
        GAIA_LLM_URL=echo_llm.url,
        GAIA_LLM_MODEL="echo",
        GAIA_LLM_TIMEOUT="8",
        GAIA_LLM_RETRIES="0",
        GAIA_Q_WORKERS="2",
        GAIA_Q_TIMEOUT="10",
        GAIA_Q_RETRY="12",
    )
    deploy.manage("migrate", "--noinput")
    yield deploy
    deploy.stop()
