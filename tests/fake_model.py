"""The fake model as a pytest plugin (tests/conftest.py loads it for every test): a
scripted OpenAI-compatible LLM server with small deadlines (tests/learning/fake_llm.py),
the settings that point at it or at none, and the tasks a test queued."""

import pytest

from core import queue
from tests.learning.fake_llm import FakeLLM


@pytest.fixture
def queued(monkeypatch):
    """Tasks queued (func, args). Each test runs inside a transaction that never commits,
    so on-commit callbacks run at once here (test_extraction checks the real timing)."""
    calls: list = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: calls.append((func, a)))
    monkeypatch.setattr(queue.transaction, "on_commit", lambda send, **kwargs: send())
    return calls


@pytest.fixture
def llm_settings(settings):
    """Small deadlines and back-off so failure tests stay fast."""
    settings.GAIA_LLM_MODEL = "fake-model"
    settings.GAIA_LLM_API_KEY = "test-key"
    settings.GAIA_LLM_TIMEOUT = 1.0
    settings.GAIA_LLM_CONNECT_TIMEOUT = 0.5
    settings.GAIA_LLM_RETRIES = 2
    settings.GAIA_LLM_BACKOFF = 0.01
    settings.GAIA_LLM_RETRY_AFTER_MAX = 0.2
    settings.GAIA_LLM_BREAKER_THRESHOLD = 100
    settings.GAIA_LLM_MAX_BYTES = 64 * 1024
    settings.GAIA_LLM_JSON_MODE = True
    return settings


@pytest.fixture
def fake_llm(llm_settings):
    server = FakeLLM()
    llm_settings.GAIA_LLM_URL = server.url
    yield server
    server.close()


@pytest.fixture
def no_llm(settings):
    settings.GAIA_LLM_URL = ""
    return settings
