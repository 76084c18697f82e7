"""Fixtures of the security tests: a browser for bob and the announced traces (the fake
LLM server and the clean cache are every test's: tests/fake_model.py, tests/conftest.py)."""

import pytest
from django.test import Client

from tests.security.traces import announced  # noqa: F401


@pytest.fixture
def bob_web(bob) -> Client:
    client = Client()
    client.force_login(bob)
    return client
