"""The background tests' fixtures are the fake model plugin's (tests/fake_model.py, loaded
for every test by tests/conftest.py). Re-exported here for test modules and conftests that
still import them from this place."""

from tests.fake_model import fake_llm, llm_settings, no_llm, queued  # noqa: F401
from tests.learning.fake_llm import refused_url  # noqa: F401
from tests.support import vector  # noqa: F401
