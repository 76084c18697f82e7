"""The LLM behind the background jobs: one interface, one OpenAI-compatible client.

`get_llm()` returns the configured client, or None when no LLM is configured (then LLM
work is not attempted and its backlog is kept). Every call is bounded by an overall
deadline, retried on transient failures, guarded by a circuit breaker whose state every
process shares (`learning.llm.breaker`), read tolerantly (`learning.llm.parse`,
`learning.llm.shapes`), and its outcome is counted persistently (`learning.llm.counters`).
"""

from django.conf import settings

from learning.llm.base import LLM, LLMError
from learning.llm.client import OpenAICompatLLM

__all__ = ["LLM", "LLMError", "clients_clear", "get_llm", "llm_configured"]

_clients: dict[tuple, OpenAICompatLLM] = {}


def llm_configured() -> bool:
    return bool(settings.GAIA_LLM_URL.strip())


def get_llm() -> OpenAICompatLLM | None:
    """The process-wide client for the current settings; None when no LLM is configured."""
    if not llm_configured():
        return None
    options = {
        "url": settings.GAIA_LLM_URL.strip(),
        "model": settings.GAIA_LLM_MODEL,
        "api_key": settings.GAIA_LLM_API_KEY,
        "timeout": settings.GAIA_LLM_TIMEOUT,
        "connect_timeout": settings.GAIA_LLM_CONNECT_TIMEOUT,
        "retries": settings.GAIA_LLM_RETRIES,
        "max_tokens": settings.GAIA_LLM_MAX_TOKENS,
        "max_bytes": settings.GAIA_LLM_MAX_BYTES,
        "json_mode": settings.GAIA_LLM_JSON_MODE,
        "backoff": settings.GAIA_LLM_BACKOFF,
        "retry_after_max": settings.GAIA_LLM_RETRY_AFTER_MAX,
        "breaker_threshold": settings.GAIA_LLM_BREAKER_THRESHOLD,
        "breaker_cooldown": settings.GAIA_LLM_BREAKER_COOLDOWN,
    }
    key = tuple(sorted(options.items()))
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = OpenAICompatLLM(**options)
    return client


def clients_clear() -> None:
    """Forget the built clients (as a new process would start without them)."""
    _clients.clear()
