"""Shared fixtures: users alice and bob (and charlie), each with an API token. And how a
parallel run (pytest-xdist) is laid out: the longest tests first, and on Redis one
database number per process."""

import os
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test.signals import setting_changed
from rest_framework.test import APIClient

from accounts.services import token_create
from memory import holder as holder_names
from retrieval.caches import clear_process_caches

# The fake model servers' fixtures (fake_llm, llm_settings, no_llm, queued), for every test.
pytest_plugins = ["tests.fake_model"]

# Markers of the tests that take tens of seconds, longest kind first (pyproject.toml).
LONG_FIRST = ("slow", "system", "own_sqlite")


def _rank(item: pytest.Item) -> int:
    for rank, name in enumerate(LONG_FIRST):
        if item.get_closest_marker(name):
            return rank
    return len(LONG_FIRST)


@pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle, kept where ranks tie
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first, then the files with the most tests: xdist hands out whole
    files in this order (Makefile's `--dist loadfile --no-loadscope-reorder`), so the
    processes share the long ones and a run ends on short files, not with one process
    alone on a minute-long test."""
    per_file = Counter(item.path for item in items)
    items.sort(key=lambda item: (_rank(item), -per_file[item.path]))


def _redis_url_of_worker(url: str, worker: str) -> str:
    """`url` with its database number moved up by the xdist worker's index (gw1: +1)."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + int(worker.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{number}"))


def pytest_configure(config: pytest.Config) -> None:
    """On Redis, each xdist process gets a Redis database of its own, for its cache and the
    broker of the deployments its system tests start: a test that clears the cache (a
    FLUSHDB) must not empty the queue of a deployment another process is testing."""
    url, worker = os.environ.get("GAIA_REDIS_URL"), os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker:
        return
    url = _redis_url_of_worker(url, worker)
    os.environ["GAIA_REDIS_URL"] = url  # read by tests/system/conftest.py
    django_settings.GAIA_REDIS_URL = url
    django_settings.Q_CLUSTER["redis"] = url
    django_settings.CACHES["default"]["LOCATION"] = url
    setting_changed.send(sender=type(django_settings), setting="CACHES", value=None, enter=True)
    from django_q.conf import Conf  # read Q_CLUSTER when first imported

    Conf.REDIS = url


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Real hashing costs ~0.3 s per user; tests check behaviour, not hash strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache holds throttle and login counters, queue de-duplication marks and the
    disk-full mark: every test starts from an empty one and leaves one."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_search_caches(settings, tmp_path):
    # Owner ids and generations come back after a rolled-back test; what a process cached
    # of an earlier test's rows (vocabulary, word counts, vector indexes, query vectors)
    # must not, nor the index snapshots it wrote (each test has its own folder).
    clear_process_caches()
    holder_names.clear_cache()
    settings.GAIA_INDEX_SNAPSHOT_DIR = str(tmp_path / "indexes")
    settings.GAIA_SNAPSHOT_ERASE_POLL = 0  # a test applies other nodes' erases itself
    # Token vectors are stored in the committing thread, not by a background thread that
    # would write through its own connection into another test's database.
    settings.GAIA_LATE_WRITES = "inline"
    # The judged path as shipped, whatever the environment says; the tests of the
    # judge-decides path turn it on themselves.
    settings.GAIA_JUDGE_DECIDES = False
    yield
    clear_process_caches()
    holder_names.clear_cache()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", "alice-pass-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.org", "bob-pass-123")


@pytest.fixture
def charlie(django_user_model):
    return django_user_model.objects.create_user("charlie", "charlie@example.org", "charlie-pass")


def _client_for(user) -> APIClient:
    _, secret = token_create(user=user, name="test-agent")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    client.token_secret = secret
    return client


@pytest.fixture
def alice_api(alice) -> APIClient:
    return _client_for(alice)


@pytest.fixture
def bob_api(bob) -> APIClient:
    return _client_for(bob)
