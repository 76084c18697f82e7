"""The "llm" block of stats and the "llm" health check: model state, failures, backlog.

The state comes from the row every process shares (`learning.llm.breaker`), so the web
process reports an outage it never saw itself: "failing" from the first transient
failure, "circuit open" once the breaker fails fast, "recovering" when a trial call is
due, "ok" again after the next call that succeeds.
"""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from conversations.models import Turn
from learning.consolidation import sessions_due
from learning.llm import llm_configured
from learning.llm.breaker import FAILING, OPEN, state_row
from learning.llm.counters import llm_counts

NOT_CONFIGURED = "not configured"


def model_state() -> dict[str, Any]:
    """{"state", "since", "failures_in_a_row", "last_kind"} of the configured model."""
    if not llm_configured():
        return {"state": NOT_CONFIGURED, "since": None, "failures_in_a_row": 0, "last_kind": ""}
    row = state_row()
    if row is None or row.state not in (FAILING, OPEN):
        return {"state": "ok", "since": None, "failures_in_a_row": 0, "last_kind": ""}
    state = "failing"
    if row.state == OPEN:
        due = row.open_until is None or timezone.now() >= row.open_until
        state = "recovering" if due else "circuit open"
    return {
        "state": state,
        "since": row.since,
        "failures_in_a_row": row.failures,
        "last_kind": row.last_kind,
    }


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
        **model_state(),
        "model": settings.GAIA_LLM_MODEL if llm_configured() else "",
        **llm_counts(user=user),
        "backlog": backlog(user=user),
    }


def llm_health() -> dict[str, Any]:
    """Health check "llm": not ok while the model fails. No LLM configured is a state,
    not an error."""
    state = model_state()
    recent = llm_counts(since=timezone.now() - timedelta(hours=1))
    return {
        "ok": state["state"] in ("ok", NOT_CONFIGURED),
        **state,
        "failures_last_hour": recent["failures_total"],
        # kind and time only: a message could quote a model answer about someone's memory
        "last_failure": (
            {k: recent["last_failure"][k] for k in ("kind", "at")}
            if recent["last_failure"]
            else None
        ),
        "backlog": backlog(),
    }
