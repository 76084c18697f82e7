from tests.learning.conftest import fake_llm, llm_settings  # noqa: F401
