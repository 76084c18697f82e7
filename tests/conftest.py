"""Shared fixtures: users alice and bob (and charlie), each with an API token."""

import pytest
from rest_framework.test import APIClient

from accounts.services import token_create
from retrieval.caches import clear_process_caches


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Real hashing costs ~0.3 s per user; tests check behaviour, not hash strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_search_caches(settings, tmp_path):
    # Owner ids and generations come back after a rolled-back test; what a process cached
    # of an earlier test's rows (vocabulary, word counts, vector indexes, query vectors)
    # must not, nor the index snapshots it wrote (each test has its own folder).
    clear_process_caches()
    settings.GAIA_INDEX_SNAPSHOT_DIR = str(tmp_path / "indexes")
    yield
    clear_process_caches()


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
