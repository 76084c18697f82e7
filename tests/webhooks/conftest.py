import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver(settings):
    settings.GAIA_WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on loopback
    found = Receiver()
    yield found
    found.close()
