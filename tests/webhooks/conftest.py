import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.stop()
