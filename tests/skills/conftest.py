from tests.learning.conftest import _fresh_cache, fake_llm, llm_settings, queued  # noqa: F401
