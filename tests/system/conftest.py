"""Fixtures of the system tests: a private database (a SQLite file, or a fresh PostgreSQL
database when DATABASE_URL points at PostgreSQL, dropped afterwards), the Redis broker when
GAIA_REDIS_URL is set, an extraction LLM, and a deployment whose processes always die.

The database comes migrated: a copy of a template that `manage.py migrate` made once (per
test run on SQLite, tests/migrated.py; per test process on PostgreSQL, CREATE DATABASE ...
TEMPLATE), not migrated from nothing for every test.
"""

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.migrated import migrated_sqlite
from tests.system.deployment import Deployment
from tests.system.echo_llm import EchoLLM


def _on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def _database(name: str) -> tuple[str, str]:
    """(URL of database `name` on DATABASE_URL's server, URL of its maintenance database)."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    admin_url = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    return urlunsplit(parts._replace(path=f"/{name}")), admin_url


@pytest.fixture(scope="session")
def postgres_template(tmp_path_factory: pytest.TempPathFactory):
    """Name of a PostgreSQL database `manage.py migrate` made, dropped after the run."""
    name = f"gaia_system_template_{secrets.token_hex(4)}"
    url, admin_url = _database(name)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        Deployment(tmp_path_factory.mktemp("template"), url).manage("migrate", "--noinput")
        yield name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path):
    if not _on_postgres():
        yield f"sqlite:///{migrated_sqlite(tmp_path / 'gaia.sqlite3')}"
        return
    template = request.getfixturevalue("postgres_template")
    name = f"gaia_system_{secrets.token_hex(4)}"
    url, admin_url = _database(name)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    yield url
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
    # What the first command of a deployment (migrate) writes, written before the processes
    # that start together would each race to write a key of their own.
    key = data_dir / "secret_key"
    key.write_text(secrets.token_urlsafe(50))
    key.chmod(0o600)
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
        GAIA_WEBHOOK_ALLOW_PRIVATE="1",  # the test receivers listen on loopback
    )
    yield deploy
    deploy.stop()
