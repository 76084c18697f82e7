"""Fixtures for the web pages: browsers (Django test clients) logged in as alice and bob."""

import pytest
from django.test import Client


def pytest_configure(config: pytest.Config) -> None:
    # Also registered project-wide by the API tests; registering twice is harmless.
    config.addinivalue_line(
        "markers", "cross_user(url_name): a test that another user's ids give 404 on that URL"
    )


@pytest.fixture
def alice_web(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_web(bob) -> Client:
    client = Client()
    client.force_login(bob)
    return client
