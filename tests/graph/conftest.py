import pytest
from django.test import Client

from tests.recall_fixtures import commit, model_server, remote_embedder  # noqa: F401


def logged_in(user) -> Client:
    """A browser session of `user` (the web pages and the admin)."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice_web(alice) -> Client:
    return logged_in(alice)


@pytest.fixture
def bob_web(bob) -> Client:
    return logged_in(bob)


@pytest.fixture
def staff_web(django_user_model) -> Client:
    return logged_in(
        django_user_model.objects.create_superuser("root", "root@example.org", "root-pass-1")
    )
