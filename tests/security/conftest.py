"""Fixtures of the security tests: the fake LLM server of the background tests, a
browser per user, and a clean cache (throttle counters) for every test."""

import pytest
from django.core.cache import cache
from django.test import Client

from tests.learning.conftest import fake_llm, llm_settings, no_llm, queued  # noqa: F401
from tests.security.traces import announced  # noqa: F401


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def bob_web(bob) -> Client:
    client = Client()
    client.force_login(bob)
    return client
