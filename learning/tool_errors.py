"""Tool errors: a failed tool call becomes an `error` item (source error_auto, entity
tool:<name>) so the agent can avoid it next time; a later success of the same tool
retires the stale error items by forgetting them (soft: hidden, restorable).

The job looks at the database, not at the event that queued it: the latest call of the
tool decides. So tasks running late or out of order, or twice, end the same way.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from accounts.services import user_settings_get
from conversations.models import ToolCall
from core.queue import enqueue_on_commit
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_forget

ERROR_CHARS = 500


def tool_entity(tool_name: str) -> str:
    return f"tool:{tool_name.strip().lower()}"[:200]


def _error_items(user: Any, tool_name: str):
    return (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(category="error", source="error_auto", entity=tool_entity(tool_name))
    )


def tool_call_recorded(call: ToolCall) -> None:
    """Queue the sync after commit: always for a failure, for a success only when an
    error item of that tool is active (so ordinary successes cost nothing)."""
    if not call.success or _error_items(call.owner, call.tool_name).exists():
        enqueue_on_commit("learning.tasks.tool_errors_sync", call.owner_id, call.tool_name)


def tool_errors_sync(*, user_id: int, tool_name: str) -> dict[str, Any]:
    """Make the error items of one tool match its latest call."""
    user = get_user_model().objects.get(pk=user_id)
    latest = (
        ToolCall.objects.for_user(user)
        .filter(tool_name=tool_name)
        .select_related("session")
        .order_by("-timestamp", "-pk")
        .first()
    )
    if latest is None:
        return {"status": "no calls"}
    if latest.success:
        stale = list(_error_items(user, tool_name).values_list("pk", flat=True))
        for pk in stale:
            memory_forget(user=user, item_id=pk)
        return {"status": "retired", "items": len(stale)}
    if not user_settings_get(user).memory_enabled:
        return {"status": "skipped", "reason": "memory is turned off"}
    detail = (latest.error or latest.result_summary or "no error message").strip()
    fields = {
        "user": user,
        "category": "error",
        "source": "error_auto",
        "entity": tool_entity(tool_name),
        "context": latest.session.context if latest.session else "global",
        "metadata": {"tool_call_id": latest.pk},
    }
    try:
        item = memory_create(content=f"Tool {tool_name} failed: {detail[:ERROR_CHARS]}", **fields)
    except ValidationError:  # e.g. the error text quoted a credential: keep the fact only
        item = memory_create(content=f"Tool {tool_name} failed (error text withheld).", **fields)
    return {"status": "recorded", "item": item.pk}
