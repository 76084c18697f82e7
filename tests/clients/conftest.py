import httpx
import pytest
from gaia_memory import MemoryClient

from accounts.services import token_create
from tests.clients.django_transport import DjangoTransport


@pytest.fixture
def alice_token(alice) -> str:
    return token_create(user=alice, name="client-test")[1]


@pytest.fixture
def in_process() -> httpx.Client:
    return httpx.Client(transport=DjangoTransport())


@pytest.fixture
def memory(alice_token, in_process) -> MemoryClient:
    return MemoryClient("http://testserver", alice_token, http_client=in_process)
