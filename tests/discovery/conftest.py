import pytest

from accounts.services import user_settings_update
from discovery.scanners.base import ScanContext
from tests.discovery import fakehome


@pytest.fixture
def built(tmp_path):
    fake, browser = fakehome.build(tmp_path)
    yield fake, browser
    browser.close()


@pytest.fixture
def fake(built):
    return built[0]


@pytest.fixture
def browser(built):
    """The open connection of a 'running' Firefox to its places.sqlite."""
    return built[1]


@pytest.fixture
def ctx(fake) -> ScanContext:
    return ScanContext(
        home=fake.home,
        roots=(fake.src,),
        platform="linux",
        system_root=fake.system,
        days=30,
        now=fakehome.NOW,
    )


@pytest.fixture
def consenting(alice):
    user_settings_update(user=alice, discovery_consent=True)
    return alice
