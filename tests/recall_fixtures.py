"""Fixtures shared by tests/retrieval and tests/graph (imported by their conftest.py)."""

from contextlib import contextmanager

import pytest

from memory.services import memory_create
from retrieval import indexes
from tests.fake_model_server import FakeModelServer

# Alice's facts: distinct topics, so each question has one right answer.
ALICE_FACTS = [
    "Alice's sister Maya lives in Lisbon",
    "Alice is allergic to peanuts",
    "Alice drinks oat milk flat whites every morning",
    "The team retro is on Thursdays at 3pm",
    "Alice's laptop is a ThinkPad X1 running Fedora",
]

# A person's own account as our extraction words it, for the judge's tests.
ACCOUNT = [
    "User has a cat named Miso, a grey British shorthair",
    "User's dog Rex is a border collie",
    "User's GP is Dr. Marta Sousa at the Boavista health centre",
    "User is allergic to penicillin",
    "Prefers oat milk in coffee",
    "User plays padel on Tuesdays with colleagues",
    "User's favourite beach is Praia da Ursa",
    "User's partner Rui works as an architect",
    "Project Atlas uses Svelte for its frontend",
    "User's daughter Inês starts primary school in September 2027",
]


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """`with commit(): ...` runs the on-commit work (embedding, index updates) at the end."""

    @contextmanager
    def run():
        with django_capture_on_commit_callbacks(execute=True):
            yield

    return run


@pytest.fixture
def model_server():
    server = FakeModelServer(dim=16)
    yield server
    server.close()


@pytest.fixture
def remote_embedder(settings, model_server):
    """Settings for the OpenAI-compatible embedder against the fake server."""
    settings.GAIA_EMBEDDER = "openai"
    settings.GAIA_EMBED_URL = model_server.url
    settings.GAIA_EMBED_MODEL = "fake-embed"
    settings.GAIA_EMBED_DIM = model_server.dim
    settings.GAIA_EMBED_API_KEY = "test-key"
    settings.GAIA_EMBED_TIMEOUT = 2.0
    return model_server


@contextmanager
def as_process(cache):
    """Run the block as if in another serving process (its own vector-index cache)."""
    previous = indexes._cache
    indexes._cache = cache
    try:
        yield cache
    finally:
        indexes._cache = previous


@pytest.fixture
def account(alice, commit):
    """ACCOUNT stored as alice's own memories, committed (the token vectors are written
    after commit): text -> item."""
    with commit():
        return {text: memory_create(user=alice, content=text, source="user") for text in ACCOUNT}
