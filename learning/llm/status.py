"""The "llm" block of stats and the "llm" health check: configuration, failures, backlog."""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from conversations.models import Turn
from learning.consolidation import sessions_due
from learning.llm import get_llm, llm_configured
from learning.llm.counters import llm_counts

NOT_CONFIGURED = "not configured"


def _state() -> str:
    llm = get_llm()
    if llm is None:
        return NOT_CONFIGURED
    return {"closed": "ok", "half-open": "recovering", "open": "circuit open"}[llm.breaker.state]


def backlog(*, user: Any = None) -> dict[str, int]:
    """Work waiting for the LLM: turns to extract, sessions to consolidate."""
    turns = Turn.objects.for_user(user) if user is not None else Turn.objects.all()
    return {
        "turns_pending": turns.filter(extraction_status="pending").count(),
        "sessions_awaiting_consolidation": sessions_due(user=user).count(),
    }


def llm_stats(*, user: Any) -> dict[str, Any]:
    """One user's view: is an LLM there, how its calls for this user went, what waits."""
    return {
        "configured": llm_configured(),
        "state": _state(),
        "model": settings.GAIA_LLM_MODEL if llm_configured() else "",
        **llm_counts(user=user),
        "backlog": backlog(user=user),
    }


def llm_health() -> dict[str, Any]:
    """Health check "llm". No LLM configured is a state, not an error."""
    state = _state()
    recent = llm_counts(since=timezone.now() - timedelta(hours=1))
    return {
        "ok": state != "circuit open",
        "state": state,
        "failures_last_hour": recent["failures_total"],
        # kind and time only: a message could quote a model answer about someone's memory
        "last_failure": (
            {k: recent["last_failure"][k] for k in ("kind", "at")}
            if recent["last_failure"]
            else None
        ),
        "backlog": backlog(),
    }
